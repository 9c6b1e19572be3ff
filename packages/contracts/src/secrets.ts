/** Secret names: a letter or underscore, then up to 63 letters, digits or underscores. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A secret as the API shows it: never its value. */
export interface Secret {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/secrets. */
export interface SecretInput {
  name: string;
  value: string;
}

/** Body of PATCH /v1/secrets/:id. */
export interface SecretPatch {
  value: string;
}
