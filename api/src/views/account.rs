//! Accounts, sessions, personal tokens and vacation.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Timestamp;
use crate::{credentials::Scope, secret::Secret};

/// A new password for the caller's account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePasswordRequest {
    /// The password the account has now.
    #[schema(value_type = String)]
    pub current_password: Secret,
    /// 8 to 128 characters, not containing the username, not one of the
    /// most common passwords.
    #[schema(value_type = String)]
    pub new_password: Secret,
}

/// The caller's password, confirming that the account is to be deleted.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAccountRequest {
    /// The password the account has now.
    #[schema(value_type = String)]
    pub password: Secret,
}

/// A new account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAccountRequest {
    /// 3 to 20 characters: letters, digits, `_` and `-`, beginning with a
    /// letter or digit. Unique regardless of case.
    pub username: String,
    /// 8 to 128 characters, not containing the username, not one of the
    /// most common passwords.
    #[schema(value_type = String)]
    pub password: Secret,
}

/// An account, as its owner sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountView {
    pub id: String,
    pub username: String,
    pub created_at: Timestamp,
}

/// The OAuth 2 password grant.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordGrantRequest {
    /// Always `password`.
    pub grant_type: PasswordGrant,
    pub username: String,
    #[schema(value_type = String)]
    pub password: Secret,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PasswordGrant {
    Password,
}

/// A refresh token to trade.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    #[schema(value_type = String)]
    pub refresh_token: Secret,
}

/// A signed-in session's tokens (the OAuth 2 token response).
#[derive(Serialize, ToSchema)]
pub struct TokenResponse {
    /// A JWT to send as `Authorization: Bearer <access_token>`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// Single use: trade it at `POST /api/v1/auth/refresh` for new tokens.
    pub refresh_token: String,
    /// The scopes of the access token, space-separated.
    pub scope: String,
}

/// A personal access token to create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTokenRequest {
    /// A name to recognise the token by, 1 to 100 characters.
    pub name: String,
    /// What the token may do.
    pub scopes: Vec<Scope>,
    /// Days until it expires: 1 to 366, 90 when left out.
    #[serde(default = "default_days")]
    pub expires_in_days: i64,
}

fn default_days() -> i64 {
    90
}

/// A personal access token; `token` only in the answer that creates it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    /// The JWT itself: shown once, at creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// The caller's personal tokens.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenList {
    pub tokens: Vec<TokenView>,
}

/// A vacation state as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct VacationView {
    pub on_vacation: bool,
    /// Vacation time left, in days.
    pub balance_days: f64,
    /// When the vacation under way began.
    pub since: Option<Timestamp>,
    /// When it ends by itself, its balance spent.
    pub ends_at: Option<Timestamp>,
    pub yearly_allowance_days: i64,
    pub cap_days: i64,
}

/// The caller's e-mail address.
#[derive(Debug, Serialize, ToSchema)]
pub struct EmailView {
    /// None given yet.
    pub address: Option<String>,
    /// Whether its verification link has been followed: nothing else is
    /// sent to it before.
    pub verified: bool,
}

/// An address to receive mail at.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetEmailRequest {
    /// `name@example.org`, at most 254 characters.
    pub address: String,
}

/// The token of a verification link.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyEmailRequest {
    pub token: String,
}
