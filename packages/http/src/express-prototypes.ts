import http, { type RequestListener } from 'node:http';
import type { Express } from 'express';

/** The request and response classes a node server makes its objects with (`http.createServer` options). */
export type ServerClasses = Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'>;

function isExpressApp(handler: RequestListener | Express): handler is Express {
  const app = handler as Partial<Express>;
  return typeof app.request === 'object' && typeof app.response === 'object';
}

/** One pair per app: its prototypes are replaced once, and every server of the app shares them. */
const classesOfApp = new WeakMap<Express, ServerClasses>();

/**
 * An Express app moves every request and response onto its own prototypes (`Object.setPrototypeOf`
 * in `app.handle`). V8 then gives both objects a map of their own, and every later property access on
 * them, Node's HTTP internals included, misses its inline caches: it cost a JSON endpoint behind
 * Express half its throughput or more (`pnpm bench:edge`; bench/RESULTS.md §1). Here the app's prototypes become
 * those of two subclasses of Node's request and response, with the same properties and the same chain
 * above them, and the server makes its objects from those subclasses: the call in `app.handle` is then
 * a no-op (the same prototype), and nothing else changes.
 */
export function serverClassesFor(handler: RequestListener | Express): ServerClasses {
  if (!isExpressApp(handler)) return {};
  const known = classesOfApp.get(handler);
  if (known) return known;
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  handler.request = adopt(AppRequest.prototype, handler.request);
  handler.response = adopt(AppResponse.prototype, handler.response);
  const classes: ServerClasses = {
    IncomingMessage: AppRequest,
    ServerResponse: AppResponse as ServerClasses['ServerResponse'],
  };
  classesOfApp.set(handler, classes);
  return classes;
}

/** Gives `prototype` the own properties and the parent of `appPrototype`, and returns it. */
function adopt<T extends object>(prototype: object, appPrototype: T): T {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(appPrototype) as object | null);
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(appPrototype));
  return prototype as T;
}
