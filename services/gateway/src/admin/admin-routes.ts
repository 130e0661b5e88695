import { type Router } from 'express';
import { AccountIdParam, AuditQuery, IssueApiKeyRequest } from '@vop/contracts';
import type { SubjectKeyStore } from '@vop/personal-data';
import { eraseAccountHolder } from '../accounts/erasure.js';
import type { AuditLog } from '../audit/audit-log.js';
import { auditActorOf } from '../audit/actor.js';
import { markAudited } from '../audit/audit-writes.js';
import { ApiError, errors, parseBody, parseParam, createRouter } from '@vop/http';
import type { KeyEnvironment } from '../security/api-keys/api-key-secret.js';
import type { ApiKeyStore } from '../security/api-keys/api-key-store.js';

/**
 * Management endpoints: API keys, erasure and the audit log. The edge lets only the admin certificate
 * reach them and audits every write (the management row of packages/http/src/route-families.ts).
 */
export function adminRoutes(options: {
  keys: ApiKeyStore;
  audit: AuditLog;
  environment: KeyEnvironment;
  subjectKeys: SubjectKeyStore;
  /** The schema of the gateway's accounts read model, where the erasure clears the import fingerprint. */
  schema: string;
}): Router {
  const { keys, audit, subjectKeys, schema } = options;
  const router = createRouter();

  router.post('/admin/api-keys', async (req, res) => {
    const body = parseBody(IssueApiKeyRequest, req.body);
    const issued = await keys.sql.transaction(async (tx) => {
      const key = await keys.issue(
        {
          participantId: body.participantId,
          scopes: body.scopes,
          environment: body.environment ?? options.environment,
        },
        tx,
      );
      await audit.append(
        {
          operation: 'api-key.issued',
          user: auditActorOf(res),
          result: 'success',
          target: key.keyId,
          status: 201,
        },
        tx,
      );
      return key;
    });
    markAudited(res.locals);
    res.status(201).json(issued);
  });

  router.get('/admin/api-keys', async (_req, res) => {
    res.json({ keys: await keys.list() });
  });

  router.delete('/admin/api-keys/:keyId', async (req, res) => {
    const keyId = String(req.params.keyId);
    const revoked = await keys.sql.transaction(async (tx) => {
      const found = await keys.revoke(keyId, tx);
      if (found)
        await audit.append(
          {
            operation: 'api-key.revoked',
            user: auditActorOf(res),
            result: 'success',
            target: keyId,
            status: 200,
          },
          tx,
        );
      return found;
    });
    if (!revoked) throw errors.notFound('KEY_NOT_FOUND', 'No such API key');
    markAudited(res.locals);
    res.json({ keyId, revoked: true });
  });

  /** Erasure of an account holder (accounts/erasure.ts): verifications against the IBAN answer NOAP. */
  router.post('/admin/accounts/:id/erasure', async (req, res) => {
    const accountId = parseParam(AccountIdParam, req.params.id, () =>
      errors.notFound('ACCOUNT_NOT_FOUND', 'The account does not exist'),
    );
    await keys.sql.transaction(async (tx) => {
      await eraseAccountHolder(tx, subjectKeys, schema, accountId);
      await audit.append(
        {
          operation: 'account.erased',
          user: auditActorOf(res),
          result: 'success',
          target: accountId,
          status: 200,
        },
        tx,
      );
    });
    markAudited(res.locals);
    res.json({ accountId, erased: true });
  });

  router.get('/admin/audit', async (req, res) => {
    const query = AuditQuery.safeParse(req.query);
    if (!query.success) {
      const field = String(query.error.issues[0]?.path[0] ?? 'query');
      throw new ApiError(400, 'INVALID_PARAMETER', `Invalid query parameter ${field}`, {
        field,
        reason: 'INVALID_VALUE',
      });
    }
    res.json(
      await audit.page({
        limit: query.data.limit,
        ...(query.data.cursor !== undefined && { cursor: query.data.cursor }),
      }),
    );
  });

  return router;
}
