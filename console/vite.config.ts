// The console is built into dist/ (static files the management service serves under /auth/admin/console/ and the
// /_api alias): relative asset URLs (base './') so one build serves both paths. No plugin: esbuild compiles TSX
// with the automatic JSX runtime; type-checking is `tsc -p console` (the build script runs it first).
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
