/** The OpenAPI document itself (public: it describes the API's shape and holds no tenant data). */
import { z } from 'zod';
import { defineRoute, type RouteDef } from '../openapi/route';

export function metaRoutes(document: () => unknown): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tag: 'Meta',
      access: 'public',
      responses: { 200: { description: 'The OpenAPI document', schema: z.looseObject({ openapi: z.string() }) } },
      handler: () => Promise.resolve({ status: 200, body: document() }),
    }),
  ];
}
