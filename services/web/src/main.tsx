import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { ApiError, onUnauthorized } from './api/client';
import { forgetConversations } from './pages/ask/conversation';
import { router } from './routes';
import './styles.css';

const rateLimited = (error: unknown) => error instanceof ApiError && error.code === 'RATE_LIMITED';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // 4xx answers are final; retrying them only delays the message people need to see. A 429 is a spent second of
      // the dashboard's budget (docs/api.md "Rate limits"), answered again after its Retry-After of one second.
      retry: (failures, error) => {
        if (rateLimited(error)) return failures < 3;
        return !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2;
      },
      retryDelay: (failures, error) => (rateLimited(error) ? 1_000 : Math.min(1_000 * 2 ** failures, 30_000)),
      refetchOnWindowFocus: false,
    },
  },
});

// An expired session anywhere sends people to log-in, and back to where they were afterwards.
onUnauthorized(() => {
  const { pathname, search } = window.location;
  if (pathname === '/login' || pathname === '/signup') return;
  queryClient.clear();
  forgetConversations();
  void router.navigate(`/login?next=${encodeURIComponent(pathname + search)}`, { replace: true });
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
