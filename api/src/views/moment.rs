//! Moments on the wire: RFC 3339 in UTC to the millisecond, typed as
//! `date-time` in the OpenAPI document so that clients read them as times.

use serde::{Deserialize, Serialize};
use utoipa::{
    PartialSchema, ToSchema,
    openapi::{
        KnownFormat, RefOr, SchemaFormat,
        schema::{ObjectBuilder, Schema, Type},
    },
};

use crate::clock::{Millis, parse_rfc3339, rfc3339};

/// A moment: `2026-11-30T12:00:00.000Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub Millis);

impl From<Millis> for Timestamp {
    fn from(at: Millis) -> Timestamp {
        Timestamp(at)
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&rfc3339(self.0))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        parse_rfc3339(&text)
            .map(Timestamp)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not an RFC 3339 time")))
    }
}

impl PartialSchema for Timestamp {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .examples(["2026-11-30T12:00:00.000Z"])
            .into()
    }
}

impl ToSchema for Timestamp {}

/// A bound of a span of time a query asks for: an RFC 3339 time, or a day
/// (`2026-11-30`, from its midnight UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeOrDay(pub Millis);

impl<'de> Deserialize<'de> for TimeOrDay {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TimeOrDay, D::Error> {
        use time::{Date, macros::format_description};
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        let day = || {
            Date::parse(&text, format_description!("[year]-[month]-[day]"))
                .ok()
                .map(|day| {
                    (day.midnight().assume_utc().unix_timestamp_nanos() / 1_000_000) as Millis
                })
        };
        parse_rfc3339(&text)
            .or_else(day)
            .map(TimeOrDay)
            .ok_or_else(|| {
                serde::de::Error::custom(format!("`{text}` is not an RFC 3339 time or a date"))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_reads_back_what_it_writes() {
        let at = Timestamp(1_764_504_000_123);
        let text = serde_json::to_string(&at).unwrap();
        assert_eq!(text, "\"2025-11-30T12:00:00.123Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&text).unwrap(), at);
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
    }

    #[test]
    fn a_bound_is_a_time_or_a_day() {
        let read = |text: &str| serde_json::from_value::<TimeOrDay>(text.into()).map(|t| t.0);
        assert_eq!(read("2025-11-30").unwrap(), 1_764_460_800_000);
        assert_eq!(read("2025-11-30T12:00:00Z").unwrap(), 1_764_504_000_000);
        assert!(read("30/11/2025").is_err());
    }
}
