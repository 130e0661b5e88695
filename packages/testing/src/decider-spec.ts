import assert from 'node:assert/strict';

export interface Decider<Command, Event, State> {
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
  initialState: State;
}

/**
 * Given/when/then for a pure decider (after Emmett's DeciderSpecification): given past events, when a
 * command is decided, then these events follow, or this error is thrown.
 */
export function deciderSpec<Command, Event, State>(decider: Decider<Command, Event, State>) {
  return {
    given(events: Event[]) {
      const state = events.reduce(decider.evolve, decider.initialState);
      return {
        when(command: Command) {
          const decide = () => decider.decide(command, state);
          return {
            then(expected: Event[]): void {
              assert.deepStrictEqual(decide(), expected);
            },
            thenThrows(errorClass: new (...args: never[]) => Error): void {
              assert.throws(decide, errorClass);
            },
          };
        },
      };
    },
  };
}
