/** What the product is, above each signed-out page's form: the first thing a new visitor reads. */
export function AuthBrand() {
  return (
    <p className="auth-brand">
      <strong>tlm</strong>
      <span>Logs, product analytics, errors, traces and session replays of your apps in one place.</span>
    </p>
  );
}
