//! Authentication: argon2 password hashes, HS256 JWTs whose every `jti` is
//! on record (so any token can be revoked), scopes, and the [`Auth`]
//! extractor that a handler asks for.

use std::{fmt, future::Future, pin::Pin};

use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};
use argon2::{
    Argon2,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::{Rng, distr::Alphanumeric};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{app::AppState, clock::Millis, error::ApiError, models::token};

pub const ISSUER: &str = "kingpost";
pub const AUDIENCE: &str = "kingpost-api";

/// What a token allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Scope {
    /// Read games.
    #[serde(rename = "game:read")]
    GameRead,
    /// Play moves and act in one's games.
    #[serde(rename = "game:play")]
    GamePlay,
    /// Create, accept, decline and cancel challenges.
    #[serde(rename = "challenge:write")]
    ChallengeWrite,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::GameRead, Scope::GamePlay, Scope::ChallengeWrite];

    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::GameRead => "game:read",
            Scope::GamePlay => "game:play",
            Scope::ChallengeWrite => "challenge:write",
        }
    }

    pub fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == text)
    }
}

/// Sessions come from signing in and may do everything, managing tokens
/// included; personal tokens are for clients and bots, with chosen scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Session,
    Personal,
}

impl TokenKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            TokenKind::Session => "session",
            TokenKind::Personal => "personal",
        }
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
    pub jti: String,
    pub scopes: Vec<Scope>,
    pub kind: TokenKind,
}

/// The signing key, from `KINGPOST_JWT_SECRET` or the database.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtKeys(<redacted>)")
    }
}

impl JwtKeys {
    pub fn from_secret(secret: &[u8]) -> Result<JwtKeys, String> {
        // jsonwebtoken 12 panics on first use without a crypto provider;
        // install ours before feature unification can leave none.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        Ok(JwtKeys {
            encoding: EncodingKey::from_secret(secret).map_err(|e| format!("JWT secret: {e}"))?,
            decoding: DecodingKey::from_secret(secret).map_err(|e| format!("JWT secret: {e}"))?,
        })
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
        let now_secs = now / 1000;
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

/// The authenticated caller of a request.
#[derive(Clone, Debug)]
pub struct Auth {
    pub account_id: String,
    pub username: String,
    pub scopes: Vec<Scope>,
    pub kind: TokenKind,
    pub token_id: String,
    /// When the token expires: held requests end by then.
    pub expires_at: Millis,
}

impl Auth {
    /// Refuses the request unless the token carries `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(ApiError::InsufficientScope(scope.as_str()))
        }
    }

    /// Refuses the request unless it comes from a signed-in session.
    pub fn require_session(&self) -> Result<(), ApiError> {
        if self.kind == TokenKind::Session {
            Ok(())
        } else {
            Err(ApiError::Forbidden(
                "personal access tokens cannot manage tokens: sign in with a password".to_owned(),
            ))
        }
    }
}

/// The credentials of an `Authorization: Bearer <token>` header, the
/// scheme matched without regard to case (RFC 9110, 11.1).
pub fn bearer_credentials(headers: &header::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The claims of the request's bearer token if it verifies now, without
/// asking whether it was revoked: what rate limits and idempotency key by.
pub fn verified_claims(req_headers: &header::HeaderMap, state: &AppState) -> Option<Claims> {
    let token = bearer_credentials(req_headers)?;
    state.keys.verify(token, state.clock.now()).ok()
}

fn bearer_token(req: &HttpRequest) -> Result<String, ApiError> {
    if req.headers().get(header::AUTHORIZATION).is_none() {
        return Err(ApiError::Unauthorized(
            "no Authorization header: send `Bearer <token>`".to_owned(),
        ));
    }
    bearer_credentials(req.headers())
        .map(str::to_owned)
        .ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header is not `Bearer <token>`".to_owned())
        })
}

impl FromRequest for Auth {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Auth, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let token = bearer_token(req);
        let state = req.app_data::<web::Data<AppState>>().cloned();
        Box::pin(async move {
            let token = token?;
            let state =
                state.ok_or_else(|| ApiError::Internal("no application state".to_owned()))?;
            let now = state.clock.now();
            let claims = state.keys.verify(&token, now)?;
            let jti = claims.jti.clone();
            let record = state
                .db(move |conn| Ok(token::find_live(conn, &jti, now)?))
                .await?;
            let (record, username) =
                record.ok_or_else(|| ApiError::Unauthorized("the token was revoked".to_owned()))?;
            if record.account_id != claims.sub {
                return Err(ApiError::Unauthorized(
                    "the token does not match its record".to_owned(),
                ));
            }
            Ok(Auth {
                account_id: record.account_id,
                username,
                scopes: claims.scopes,
                kind: claims.kind,
                token_id: record.id,
                expires_at: record.expires_at,
            })
        })
    }
}
