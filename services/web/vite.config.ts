import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `pnpm --filter @tlm/web dev` serves the app with hot reload and sends /api and /v1 to a running server
// (TLM_API, default the standalone server on 8080), so the app and the API share one origin as in production.
const api = process.env['TLM_API'] ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 800 },
  server: { proxy: { '/api': api, '/v1': api } },
});
