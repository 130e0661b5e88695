import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema in this package is built from this one instance so OpenAPI metadata can be attached.
extendZodWithOpenApi(z);

export { z };
