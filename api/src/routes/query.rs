//! The query string read into its typed form once, before the handler
//! runs: every value arrives parsed, and one that does not read is a 422
//! naming its parameter.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, Code};

/// A handler's query parameters, read into `T`.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = Ready<Result<Query<T>, ApiError>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        ready(read(req.query_string()).map(Query))
    }
}

/// `query` read into `T`. A rule set that names none is `unknown_rules`,
/// as it is in a body; any other bad value is `invalid_query`.
pub fn read<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let pairs = serde_urlencoded::Deserializer::new(url::form_urlencoded::parse(query.as_bytes()));
    serde_path_to_error::deserialize(pairs).map_err(|error| {
        let parameter = error.path().to_string();
        let code = match parameter.as_str() {
            "rules" => Code::UnknownRules,
            _ => Code::InvalidQuery,
        };
        let detail = match parameter.as_str() {
            // Not one parameter's: a missing or unknown one.
            "." => error.inner().to_string(),
            _ => format!("`{parameter}`: {}", error.inner()),
        };
        ApiError::invalid(code, detail)
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;
    use crate::views::{GameResult, RuleKey};

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Asked {
        rules: RuleKey,
        result: Option<GameResult>,
        limit: Option<i64>,
    }

    #[test]
    fn values_arrive_typed_and_bad_ones_name_their_parameter() {
        let asked: Asked = read("rules=captive-kings&result=1%2F2-1%2F2&limit=5").unwrap();
        assert_eq!(asked.rules.0, kingpost_core::Rules::CaptiveKings);
        assert_eq!(asked.result, Some(GameResult::Draw));
        assert_eq!(asked.limit, Some(5));

        let refused = |query: &str| {
            let error = read::<Asked>(query).unwrap_err();
            (error.code(), error.to_string())
        };
        let (code, detail) = refused("rules=chesslike");
        assert_eq!(code, Code::UnknownRules);
        assert!(
            detail.contains("`rules`") && detail.contains("chesslike"),
            "{detail}"
        );
        let (code, detail) = refused("rules=standard&result=2-0");
        assert_eq!(code, Code::InvalidQuery);
        assert!(
            detail.contains("`result`") && detail.contains("1/2-1/2"),
            "{detail}"
        );
        let (code, detail) = refused("rules=standard&limit=many");
        assert_eq!(code, Code::InvalidQuery);
        assert!(detail.contains("`limit`"), "{detail}");
        let (code, detail) = refused("result=1-0");
        assert_eq!(code, Code::InvalidQuery);
        assert!(detail.contains("missing field `rules`"), "{detail}");
    }
}
