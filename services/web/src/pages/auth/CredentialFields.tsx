import type { ReactNode } from 'react';

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
      {newPassword ? (
        <NewPasswordField label="Password" hintId="password-hint" value={password} onChange={onPassword}>
          At least 8 characters.
        </NewPasswordField>
      ) : (
        <label className="field">
          <span>Password</span>
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(event) => onPassword(event.target.value)} />
        </label>
      )}
    </>
  );
}

/** A password being chosen (sign-up, invitation, reset, change): at least 8 characters, with a hint under it. */
export function NewPasswordField({
  label,
  hintId,
  value,
  onChange,
  children,
}: {
  label: string;
  hintId: string;
  value: string;
  onChange: (password: string) => void;
  /** The hint: the rule, and what setting the password does. */
  children: ReactNode;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="password"
        name="password"
        autoComplete="new-password"
        required
        minLength={8}
        aria-describedby={hintId}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      <span id={hintId} className="field-hint">
        {children}
      </span>
    </label>
  );
}
