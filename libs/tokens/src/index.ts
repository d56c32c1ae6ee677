export * from './kek';
export * from './key-store';
export * from './token-types';
export * from './password';
export * from './totp-secret';
