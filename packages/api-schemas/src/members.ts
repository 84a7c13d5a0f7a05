import { Type, type Static } from '@sinclair/typebox';

/**
 * Members, invitations by e-mail and passwords (docs/api.md "Organizations, members, projects", "Invitations",
 * "Identity"): the dashboard API validates with these and the web app takes its types from them.
 */

const Enum = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Time = Type.String({ description: 'ISO 8601 UTC with milliseconds' });
const MemberRole = Enum(['owner', 'member'] as const);
/** A new password: as at sign-up. */
const NewPassword = Type.String({ minLength: 8, maxLength: 1024 });
/** A link's token: 32 random bytes in base64url. */
const LinkToken = Type.String({ minLength: 1, maxLength: 200 });

export const Member = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: MemberRole,
  joined_at: Time,
});
export type Member = Static<typeof Member>;

export const MemberPatch = Type.Object({ role: MemberRole }, { additionalProperties: false });
export type MemberPatch = Static<typeof MemberPatch>;

/** POST /api/orgs/:org/members: a person who already has an account, by e-mail. */
export const NewMember = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), role: MemberRole });
export type NewMember = Static<typeof NewMember>;

/** Owners rename their organization; the plan is the operator's (PUT /admin/orgs/:org/plan), so it is not here. */
export const OrganizationPatch = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });
export type OrganizationPatch = Static<typeof OrganizationPatch>;

export const NewInvitation = Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }), role: MemberRole }, { additionalProperties: false });
export type NewInvitation = Static<typeof NewInvitation>;

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: MemberRole,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Time,
  expires_at: Time,
  expired: Type.Boolean(),
});
export type Invitation = Static<typeof Invitation>;

/**
 * The answer to an invitation: `mailed` says whether the link went out by mail; when it did not (no SMTP_URL, or the
 * SMTP server refused it) `accept_url` holds the link for the owner to pass on, and `mail_error` why.
 */
export const InvitationSent = Type.Object({
  invitation: Invitation,
  mailed: Type.Boolean(),
  accept_url: Type.Optional(Type.String()),
  mail_error: Type.Optional(Type.String()),
});
export type InvitationSent = Static<typeof InvitationSent>;

/** What the holder of an invitation link sees before accepting it. */
export const InvitationPreview = Type.Object({
  email: Type.String(),
  role: MemberRole,
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  invited_by: Type.Union([Type.String(), Type.Null()]),
  expires_at: Time,
  /** Whether an account holds the invited address: then it accepts by logging in, else by signing up. */
  account_exists: Type.Boolean(),
});
export type InvitationPreview = Static<typeof InvitationPreview>;

/** The token of an invitation link, to look the invitation up before accepting it. */
export const InvitationTokenBody = Type.Object({ token: LinkToken }, { additionalProperties: false });
export type InvitationTokenBody = Static<typeof InvitationTokenBody>;

/** Accepting: signed in as the invited address, the token alone; else a new account for it (name and password). */
export const AcceptInvitationBody = Type.Object(
  { token: LinkToken, name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), password: Type.Optional(NewPassword) },
  { additionalProperties: false },
);
export type AcceptInvitationBody = Static<typeof AcceptInvitationBody>;

export const InvitationAccepted = Type.Object({
  token: Type.Optional(Type.String()),
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  role: MemberRole,
});
export type InvitationAccepted = Static<typeof InvitationAccepted>;

export const PasswordResetRequest = Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }) }, { additionalProperties: false });
export type PasswordResetRequest = Static<typeof PasswordResetRequest>;

export const PasswordResetConfirm = Type.Object({ token: LinkToken, password: NewPassword }, { additionalProperties: false });
export type PasswordResetConfirm = Static<typeof PasswordResetConfirm>;

export const PasswordChange = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: NewPassword },
  { additionalProperties: false },
);
export type PasswordChange = Static<typeof PasswordChange>;
