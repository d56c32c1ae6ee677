export * from './oauth-error';
export * from './problem-error';
export { isDuplicateKeyError, mapMongoError } from './mongo-error';
