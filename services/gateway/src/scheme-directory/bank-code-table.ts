import { z, type BankCodeTableVersion } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import type { Logger } from '@vop/observability';
import type { BankCodes } from './bank-code-csv.js';
import {
  BANK_CODES_STREAM,
  decideBankCodeTable,
  type BankCodeTableLoaded,
} from './bank-code-decider.js';
import { LatestLoad } from './latest-load.js';

/** BankCodeTableLoaded as stored (the event stays in the gateway). */
const StoredBankCodeTableLoaded = z.object({
  version: z.number().int().positive(),
  tableId: z.string().optional(),
  loadedAt: z.string(),
  loadedBy: z.string(),
  entries: z.number().int().nonnegative(),
  codes: z.record(z.string(), z.array(z.tuple([z.string(), z.string()]))),
});

/** The loaded table as lookups read it: `country + bankCode` → BIC, and the countries it covers. */
export class BankCodeIndex {
  private readonly bics = new Map<string, string>();
  private readonly countries: ReadonlySet<string>;

  constructor(codes: BankCodes) {
    for (const [country, pairs] of Object.entries(codes))
      for (const [bankCode, bic] of pairs) this.bics.set(country + bankCode, bic);
    this.countries = new Set(Object.keys(codes));
  }

  /** Does the table route anything for this country? */
  covers(country: string): boolean {
    return this.countries.has(country);
  }

  bicOf(country: string, bankCode: string): string | undefined {
    return this.bics.get(country + bankCode);
  }
}

function versionOf(data: BankCodeTableLoaded['data']): BankCodeTableVersion {
  return {
    version: data.version,
    ...(data.tableId !== undefined && { tableId: data.tableId }),
    loadedAt: data.loadedAt,
    loadedBy: data.loadedBy,
    entries: data.entries,
    countries: Object.fromEntries(
      Object.entries(data.codes)
        .map(([country, pairs]) => [country, pairs.length] as const)
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
  };
}

interface HeldTable {
  index: BankCodeIndex;
  version: BankCodeTableVersion;
}

/** The bank-code table of this deployment (stream `bank-codes`), held in memory (latest-load.ts). */
export class BankCodeTable {
  private readonly latest: LatestLoad<BankCodeTableLoaded['data'], HeldTable>;

  constructor(options: { store: EventStore; logger: Logger; refreshMs?: number }) {
    this.latest = new LatestLoad({
      store: options.store,
      stream: BANK_CODES_STREAM,
      name: 'bank-code table',
      parse: (data) => StoredBankCodeTableLoaded.parse(data),
      hold: (data) => ({ index: new BankCodeIndex(data.codes), version: versionOf(data) }),
      logger: options.logger,
      ...(options.refreshMs !== undefined && { refreshMs: options.refreshMs }),
    });
  }

  current(): BankCodeIndex | undefined {
    return this.latest.current()?.index;
  }

  version(): BankCodeTableVersion | undefined {
    return this.latest.current()?.version;
  }

  async load(input: {
    codes: BankCodes;
    entries: number;
    tableId?: string;
    loadedBy: string;
    now: Date;
    expectedVersion?: number;
  }): Promise<BankCodeTableVersion> {
    const loaded = await this.latest.load((version) =>
      decideBankCodeTable(
        {
          type: 'LoadBankCodeTable',
          codes: input.codes,
          entries: input.entries,
          ...(input.tableId !== undefined && { tableId: input.tableId }),
          now: input.now.toISOString(),
          loadedBy: input.loadedBy,
          ...(input.expectedVersion !== undefined && { expectedVersion: input.expectedVersion }),
        },
        { version },
      ),
    );
    return versionOf(loaded);
  }

  refresh(): Promise<void> {
    return this.latest.refresh();
  }

  start(): Promise<void> {
    return this.latest.start();
  }

  stop(): Promise<void> {
    return this.latest.stop();
  }
}
