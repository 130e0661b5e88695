// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API
// installed before the library module is evaluated; importing it first guarantees that order.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto);

export { x509 };
