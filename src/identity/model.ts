/** Request schemas of /api/auth/*. */
import { t } from "elysia";

export const email = t.String({
  minLength: 3,
  maxLength: 254,
  pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$",
  error: "must be an e-mail address",
});
export const password = t.String({ minLength: 10, maxLength: 256, error: "must be 10 to 256 characters" });

export const SignUpBody = t.Object({ email, password, name: t.Optional(t.String({ maxLength: 100 })) });
export const SignInBody = t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 256 }) });
export const ChangePasswordBody = t.Object({ currentPassword: t.String({ maxLength: 256 }), newPassword: password });
export const SetupBody = t.Object({ token: t.String({ maxLength: 200 }), email, password, name: t.Optional(t.String({ maxLength: 100 })) });
