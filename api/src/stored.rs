//! Enums kept in TEXT columns, written as their key and read strictly: a
//! value the code does not know is an error that says so, never a guess.

/// Declares an enum stored as text: each variant with its key. The enum
/// gets `key()`, `FromStr` (its error names what the text should be) and
/// Diesel's `ToSql`/`FromSql` on `Text` for every backend.
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $($(#[$variant_meta:meta])* $variant:ident = $key:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, diesel::AsExpression, diesel::FromSqlRow)]
        #[diesel(sql_type = diesel::sql_types::Text)]
        $vis enum $name {
            $($(#[$variant_meta])* $variant,)*
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

        impl<DB: diesel::backend::Backend> diesel::serialize::ToSql<diesel::sql_types::Text, DB>
            for $name
        where
            str: diesel::serialize::ToSql<diesel::sql_types::Text, DB>,
        {
            fn to_sql<'b>(
                &'b self,
                out: &mut diesel::serialize::Output<'b, '_, DB>,
            ) -> diesel::serialize::Result {
                self.key().to_sql(out)
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

pub(crate) use text_enum;
