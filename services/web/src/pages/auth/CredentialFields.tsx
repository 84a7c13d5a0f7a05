/**
 * The Email and Password fields of the log-in and sign-up forms. A new password (sign-up) asks for at least 8
 * characters and says so under the field.
 */
export function CredentialFields({
  email,
  onEmail,
  password,
  onPassword,
  newPassword = false,
}: {
  email: string;
  onEmail: (email: string) => void;
  password: string;
  onPassword: (password: string) => void;
  newPassword?: boolean;
}) {
  return (
    <>
      <label className="field">
        <span>Email</span>
        <input type="email" name="email" autoComplete="email" required value={email} onChange={(event) => onEmail(event.target.value)} />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          type="password"
          name="password"
          autoComplete={newPassword ? 'new-password' : 'current-password'}
          required
          minLength={newPassword ? 8 : undefined}
          aria-describedby={newPassword ? 'password-hint' : undefined}
          value={password}
          onChange={(event) => onPassword(event.target.value)}
        />
        {newPassword ? (
          <span id="password-hint" className="field-hint">
            At least 8 characters.
          </span>
        ) : null}
      </label>
    </>
  );
}
