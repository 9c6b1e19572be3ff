/** GET /v1/signing-key and POST /v1/signing-key/rotate. */
export interface SigningKey {
  signing_key: string;
  created_at: string;
}
