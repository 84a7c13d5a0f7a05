import { Link } from 'react-router';
import { EmptyState } from '../components/States';

export default function NotFoundPage() {
  return (
    <EmptyState title="This page does not exist" level={1}>
      <p>
        The link may be old or mistyped. <Link to="/">Go to your projects</Link>.
      </p>
    </EmptyState>
  );
}
