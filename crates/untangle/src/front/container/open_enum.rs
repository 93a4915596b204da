//! `open_enum!`: a C-style enum read from a file, with a catch-all for values a newer
//! compiler may write. Reading must never fail just because DXC grew a new enumerant,
//! so unknown values are kept (`Other(raw)`) rather than rejected.
//!
//! Serialized as the variant name for known values and as the number otherwise.

macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident: $raw:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this reader does not know, kept as found.
            Other($raw),
        }

        impl $name {
            pub fn from_raw(raw: $raw) -> Self {
                match raw {
                    $( v if v == $value => $name::$variant, )*
                    other => $name::Other(other),
                }
            }

            pub fn to_raw(self) -> $raw {
                match self {
                    $( $name::$variant => $value, )*
                    $name::Other(v) => v,
                }
            }

            /// The enumerant's name as spelled in DXC, if known.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $( $name::$variant => Some(stringify!($variant)), )*
                    $name::Other(_) => None,
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.name() {
                    Some(name) => s.serialize_str(name),
                    None => s.serialize_u64(self.to_raw() as u64),
                }
            }
        }
    };
}

// Lets `src/dxil` declare its metadata enums the same way.
pub(crate) use open_enum;
