import { AccountNumberVerifyRequest, renderAccountNumberResponse } from '@vop/contracts';
import type { SqlExecutor } from '@vop/event-store';
import { parseBody, requestMetadata, createRouter } from '@vop/http';
import { type Router } from 'express';
import { findLiveDomesticAccount } from '../accounts/read-model.js';
import type { SynchronousVerifier } from './synchronous.js';

/**
 * The key a family-D verification of an account the bank does not hold travels under: there is no IBAN
 * to give (a UK IBAN needs the bank code too), so matching finds no account and answers NOAP, and the
 * verification is recorded and readable by id like any other (docs/architecture.md, "Family D").
 */
export function unknownDomesticAccountKey(sortCode: string, accountNumber: string): string {
  return `GB-SCAN-${sortCode}-${accountNumber}`;
}

/** Whether a `POST /verify` body asks by account number and sort code (family D) rather than by IBAN (B). */
function asksByAccountNumber(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && ('accountNumber' in body || 'sortCode' in body)
  );
}

/**
 * Family D: `POST /verify {accountNumber, sortCode, accountName}` answers at once. The gateway's accounts
 * read model turns the sort code and account number into the account's IBAN, status and holder type;
 * matching decides the name as for every family.
 */
export function accountNumberVerificationRoutes(options: {
  verifier: SynchronousVerifier;
  sql: SqlExecutor;
  schema: string;
}): Router {
  const { verifier, sql, schema } = options;
  const router = createRouter();

  router.post('/verify', async (req, res, next) => {
    if (!asksByAccountNumber(req.body)) return next();
    const body = parseBody(AccountNumberVerifyRequest, req.body);
    const account = await findLiveDomesticAccount(sql, schema, body.sortCode, body.accountNumber);
    const request = verifier.requestFor(res, {
      family: 'account-number',
      iban: account?.iban ?? unknownDomesticAccountKey(body.sortCode, body.accountNumber),
      name: body.accountName,
    });
    const completed = await verifier.verifyNow(res, request, requestMetadata(req));
    res.json(
      renderAccountNumberResponse(
        completed,
        account && {
          status: account.status,
          ...(account.holder_type !== null && { holderType: account.holder_type }),
        },
        body.accountType,
      ),
    );
  });

  return router;
}
