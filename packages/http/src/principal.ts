import type { Response } from 'express';

/** Who is calling, as established by the edge (client certificate or API key); never personal data. */
export type Principal =
  | {
      kind: 'certificate';
      /** The participant (requesting PSP): the certificate's organizationIdentifier, else its subject CN. */
      participantId: string;
      /** The certificate's organizationIdentifier (the PSD2 authorisation number of a QWAC), when present. */
      organizationIdentifier?: string;
      /** SHA-256 fingerprint of the client certificate, hex. */
      fingerprint: string;
      /** Holds the configured admin certificate. */
      admin: boolean;
    }
  | {
      kind: 'api-key';
      keyId: string;
      environment: 'test' | 'live';
      scopes: string[];
      participantId: string;
    };

export function setPrincipal(res: Response, principal: Principal): void {
  res.locals.principal = principal;
}

export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}
