//! The opaque cursors of paged lists: the last item's sort key and id,
//! given back by the client to ask for the page after it.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};

use crate::error::{ApiError, Code};

/// The cursor after the item `id` whose sort key is `key`.
pub fn encode(key: i64, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{key}:{id}"))
}

/// The sort key and id a cursor of [`encode`] holds.
pub fn decode(cursor: &str) -> Result<(i64, String), ApiError> {
    let text = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = String::from_utf8(text).map_err(|_| invalid())?;
    let (key, id) = text.split_once(':').ok_or_else(invalid)?;
    Ok((key.parse().map_err(|_| invalid())?, id.to_owned()))
}

/// A cursor that is a number alone (a position in a list that only grows).
pub fn decode_number(cursor: &str) -> Result<i64, ApiError> {
    cursor.parse().map_err(|_| invalid())
}

/// The refusal of a cursor this API did not give.
pub fn invalid() -> ApiError {
    ApiError::invalid(Code::InvalidCursor, "the cursor is not one this API gave")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_gives_back_its_key_and_id() {
        let cursor = encode(-17, "a:b");
        assert_eq!(decode(&cursor).unwrap(), (-17, "a:b".to_owned()));
        for bad in ["", "%%%", &encode(0, "x")[1..], "MTIz"] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        assert_eq!(decode_number("42").unwrap(), 42);
        assert!(decode_number("4x").is_err());
    }
}
