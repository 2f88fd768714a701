//! Credentials, apart from HTTP: HS256 JWTs (keys, claims, scopes, kinds),
//! random ids and secrets, digests of what is stored of secrets, and
//! argon2 password hashes. What the domain and the middleware share.

use std::fmt;

use anyhow::Context;
use argon2::{
    Argon2,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::{Rng, distr::Alphanumeric};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    clock::{Millis, SECOND},
    error::ApiError,
    stored::{TokenId, text_enum},
};

pub const ISSUER: &str = "kingpost";
pub const AUDIENCE: &str = "kingpost-api";

text_enum! {
    /// What a token allows.
    #[derive(ToSchema)]
    pub enum Scope ("scope") {
        /// Read games.
        GameRead = "game:read",
        /// Play moves and act in one's games.
        GamePlay = "game:play",
        /// Create, accept, decline and cancel challenges.
        ChallengeWrite = "challenge:write",
        /// Play as a BOT through lichess's Bot API, and upgrade the account
        /// to a BOT.
        BotPlay = "bot:play",
    }
}

text_enum! {
    /// Sessions come from signing in and may do everything, managing tokens
    /// included; personal tokens are for clients and bots, with chosen scopes.
    pub enum TokenKind ("token kind") {
        Session = "session",
        Personal = "personal",
    }
}

/// The claims of every kingpost JWT.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub iss: String,
    pub aud: String,
    /// Seconds since the epoch.
    pub iat: i64,
    pub exp: i64,
    pub jti: TokenId,
    pub scopes: Vec<Scope>,
    pub kind: TokenKind,
}

/// The signing key, from `KINGPOST_JWT_SECRET` or the database.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// The secret, for the tags of links in mails ([`JwtKeys::link_tag`]).
    secret: Vec<u8>,
}

impl fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtKeys(<redacted>)")
    }
}

impl JwtKeys {
    pub fn from_secret(secret: &[u8]) -> anyhow::Result<JwtKeys> {
        // jsonwebtoken 12 panics on first use without a crypto provider;
        // install ours before feature unification can leave none.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        Ok(JwtKeys {
            encoding: EncodingKey::from_secret(secret).context("JWT secret")?,
            decoding: DecodingKey::from_secret(secret).context("JWT secret")?,
            secret: secret.to_vec(),
        })
    }

    /// The tag that makes a link for `purpose` and `subject` (an account's
    /// unsubscribe link) one this server wrote: an HMAC-SHA256 under the
    /// JWT secret, base64url. Its input starts with `kingpost-link:`, which
    /// no JWT's signed input does (they start with `eyJ`), so that a tag is
    /// never a token's signature.
    pub fn link_tag(&self, purpose: &str, subject: &str) -> String {
        use base64::Engine;
        use hmac::Mac;
        let mac = self.link_mac(purpose, subject).finalize().into_bytes();
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac)
    }

    /// Whether `tag` is [`JwtKeys::link_tag`]'s for `purpose` and `subject`
    /// (compared in constant time).
    pub fn is_link_tag(&self, purpose: &str, subject: &str, tag: &str) -> bool {
        use base64::Engine;
        use hmac::Mac;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(tag)
            .is_ok_and(|bytes| self.link_mac(purpose, subject).verify_slice(&bytes).is_ok())
    }

    fn link_mac(&self, purpose: &str, subject: &str) -> hmac::Hmac<sha2::Sha256> {
        use hmac::Mac;
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&self.secret)
            .expect("HMAC takes keys of any length");
        mac.update(format!("kingpost-link:{purpose}:{subject}").as_bytes());
        mac
    }

    pub fn sign(&self, claims: &Claims) -> Result<String, ApiError> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))
    }

    /// Checks signature, algorithm (HS256 only), issuer, audience and the
    /// times against `now`, the service's clock.
    pub fn verify(&self, token: &str, now: Millis) -> Result<Claims, ApiError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        // Expiry is checked below against the service's clock, which tests move.
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation)
            .map_err(|e| ApiError::Unauthorized(format!("invalid token: {e}")))?
            .claims;
        let now_secs = now / SECOND;
        if claims.exp <= now_secs {
            return Err(ApiError::Unauthorized("the token has expired".to_owned()));
        }
        if claims.iat > now_secs + 60 {
            return Err(ApiError::Unauthorized(
                "the token is not valid yet".to_owned(),
            ));
        }
        Ok(claims)
    }
}

/// A random identifier: 16 letters and digits (95 bits).
pub fn new_id() -> String {
    random_string(16)
}

/// A random secret: 43 letters and digits (256 bits).
pub fn new_secret() -> String {
    random_string(43)
}

fn random_string(len: usize) -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// The SHA-256 of a secret, hex: what is stored of refresh tokens.
pub fn digest(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An argon2id hash of `password` with a fresh salt. Slow by design: call it
/// off the async threads.
pub fn hash_password(password: &str) -> Result<String, ApiError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| ApiError::Internal(format!("hashing a password: {e}")))
}

/// Whether `password` matches `hash`. Slow by design.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}
