//! Enums kept in TEXT columns, written as their key and read strictly: a
//! value the code does not know is an error that says so, never a guess.

/// Declares an enum stored as text: each variant with its key. The enum
/// gets `key()`, `FromStr` (its error names what the text should be) and
/// Diesel's `ToSql`/`FromSql` on `Text` for every backend.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $($(#[$variant_meta:meta])* $variant:ident = $key:tt,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, diesel::AsExpression, diesel::FromSqlRow)]
        #[derive(serde::Serialize, serde::Deserialize)]
        #[diesel(sql_type = diesel::sql_types::Text)]
        $vis enum $name {
            // The wire's names are the stored ones, written once.
            $($(#[$variant_meta])* #[serde(rename = $key)] $variant,)*
        }

        impl $name {
            /// Every value, in declaration order.
            #[allow(dead_code)]
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The text stored and sent for this value.
            pub const fn key(self) -> &'static str {
                match self {
                    $($name::$variant => $key,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.key())
            }
        }

        impl $crate::stored::TextKey for $name {
            fn text_key(self) -> &'static str {
                self.key()
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<$name, String> {
                match text {
                    $($key => Ok($name::$variant),)*
                    other => Err(format!(
                        "`{other}` is not a {}: expected one of {}",
                        $what,
                        [$($key),*].join(", ")
                    )),
                }
            }
        }

        $crate::stored::text_column!($name, |value| value.key());
    };
}

pub(crate) use text_enum;

/// Diesel's `ToSql`/`FromSql` on `Text`, for every backend, for a type
/// written as the `&str` that `$text` gives and read back by its `FromStr`
/// (whose `String` error becomes the read's error).
macro_rules! text_column {
    ($name:ty, |$value:ident| $text:expr) => {
        impl<DB: diesel::backend::Backend> diesel::serialize::ToSql<diesel::sql_types::Text, DB>
            for $name
        where
            str: diesel::serialize::ToSql<diesel::sql_types::Text, DB>,
        {
            fn to_sql<'b>(
                &'b self,
                out: &mut diesel::serialize::Output<'b, '_, DB>,
            ) -> diesel::serialize::Result {
                let $value = self;
                $text.to_sql(out)
            }
        }

        impl<DB: diesel::backend::Backend> diesel::deserialize::FromSql<diesel::sql_types::Text, DB>
            for $name
        where
            String: diesel::deserialize::FromSql<diesel::sql_types::Text, DB>,
        {
            fn from_sql(bytes: DB::RawValue<'_>) -> diesel::deserialize::Result<$name> {
                Ok(String::from_sql(bytes)?.parse()?)
            }
        }
    };
}

pub(crate) use text_column;

/// What [`text_enum!`] gives every enum it declares: its stored text, and
/// reading it back (`FromStr`, whose error says what was expected).
pub trait TextKey: Copy + std::str::FromStr<Err = String> {
    fn text_key(self) -> &'static str;
}

/// A set of stored enum values in one TEXT column, as their keys separated
/// by spaces (a token's scopes, a webhook's event types), read as strictly
/// as one value is.
#[derive(Debug, Clone, PartialEq, Eq, diesel::AsExpression, diesel::FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub struct KeyList<T: TextKey> {
    values: Vec<T>,
    /// The stored text, kept so that writing can borrow it.
    text: String,
}

impl<T: TextKey> KeyList<T> {
    pub fn new(values: Vec<T>) -> KeyList<T> {
        let keys: Vec<&str> = values.iter().map(|value| value.text_key()).collect();
        let text = keys.join(" ");
        KeyList { values, text }
    }

    pub fn values(&self) -> &[T] {
        &self.values
    }

    pub fn into_values(self) -> Vec<T> {
        self.values
    }

    /// The keys as stored, separated by spaces.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl<T: TextKey + std::fmt::Debug, DB: diesel::backend::Backend>
    diesel::serialize::ToSql<diesel::sql_types::Text, DB> for KeyList<T>
where
    str: diesel::serialize::ToSql<diesel::sql_types::Text, DB>,
{
    fn to_sql<'b>(
        &'b self,
        out: &mut diesel::serialize::Output<'b, '_, DB>,
    ) -> diesel::serialize::Result {
        self.text.as_str().to_sql(out)
    }
}

impl<T: TextKey, DB: diesel::backend::Backend>
    diesel::deserialize::FromSql<diesel::sql_types::Text, DB> for KeyList<T>
where
    String: diesel::deserialize::FromSql<diesel::sql_types::Text, DB>,
{
    fn from_sql(bytes: DB::RawValue<'_>) -> diesel::deserialize::Result<KeyList<T>> {
        let text = String::from_sql(bytes)?;
        let values = text
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, String>>()?;
        Ok(KeyList::new(values))
    }
}

/// Declares an id kept as text: distinct types for distinct things, so
/// that a game's id cannot be passed where an account's is asked for. It
/// reads as the `&str` it holds (`Deref`), is sent as a JSON string, and
/// any text is one (ids are made by `credentials::new_id`, and ids that
/// name nothing are found by the lookups that fail on them).
macro_rules! text_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            PartialEq,
            Eq,
            Hash,
            Default,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
            diesel::AsExpression,
            diesel::FromSqlRow,
        )]
        #[diesel(sql_type = diesel::sql_types::Text)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> $name {
                $name(text)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                $name(text.to_owned())
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<$name, String> {
                Ok($name(text.to_owned()))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        text_column!($name, |id| id.0.as_str());
    };
}

text_id! {
    /// An account's id.
    AccountId
}

text_id! {
    /// A game's id.
    GameId
}

text_id! {
    /// A collection's id.
    CollectionId
}

text_id! {
    /// A challenge's id.
    ChallengeId
}

text_id! {
    /// A tournament's id.
    TournamentId
}

text_id! {
    /// A team's id.
    TeamId
}

text_id! {
    /// A webhook's id.
    WebhookId
}

text_id! {
    /// An access token's id (its JWT's `jti`).
    TokenId
}
