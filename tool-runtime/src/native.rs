//! The native value a tool produced, kept for the application beside what the model sees.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// A tool's native (processed) value, of any `'static + Send + Sync` type; get it back with
/// [`downcast_ref`](Self::downcast_ref) or [`downcast`](Self::downcast).
///
/// Scalars (integers, floats, `bool`, `char`, `()`) and a `String` are held inline, the rest
/// behind an `Arc`: most tools return small values or text, and a result should not cost an
/// allocation for them; a clone (of a [`ToolResult`](crate::ToolResult), say) shares a value
/// behind an `Arc` rather than copying it.
///
/// ```
/// use toolwright::Native;
///
/// let native = Native::new(42_i64);
/// assert_eq!(native.downcast_ref::<i64>(), Some(&42));
/// assert_eq!(native.downcast_ref::<u8>(), None);
/// let native = Native::new(vec!["a", "b"]);
/// assert_eq!(native.downcast::<Vec<&str>>().unwrap().len(), 2);
/// ```
#[derive(Clone)]
pub struct Native(Repr);

macro_rules! inline_scalars {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        #[derive(Clone)]
        enum Repr {
            $($variant($ty),)*
            Shared(Arc<dyn Any + Send + Sync>),
        }

        impl Native {
            /// Keeps `value`.
            #[inline]
            pub fn new<T: Any + Send + Sync>(value: T) -> Self {
                // `Option` lets a scalar be moved out through `dyn Any` without a box; for a given
                // `T` all but one branch fold away.
                let mut slot = Some(value);
                $(
                    // The `TypeId` comparison folds at compile time; the downcast only moves.
                    if TypeId::of::<T>() == TypeId::of::<$ty>() {
                        if let Some(scalar) = (&mut slot as &mut dyn Any)
                            .downcast_mut::<Option<$ty>>()
                            .and_then(Option::take)
                        {
                            return Native(Repr::$variant(scalar));
                        }
                    }
                )*
                match slot {
                    Some(value) => Native(Repr::Shared(Arc::new(value))),
                    // Only a branch above that returned takes the value out.
                    None => Native(Repr::Unit(())),
                }
            }

            /// Keeps an already shared value.
            pub fn from_arc(value: Arc<dyn Any + Send + Sync>) -> Self {
                Native(Repr::Shared(value))
            }

            fn as_any(&self) -> &(dyn Any + Send + Sync) {
                match &self.0 {
                    $(Repr::$variant(scalar) => scalar,)*
                    Repr::Shared(value) => value.as_ref(),
                }
            }

            /// The value as an `Arc`, a scalar put in one.
            pub fn into_arc(self) -> Arc<dyn Any + Send + Sync> {
                match self.0 {
                    $(Repr::$variant(scalar) => Arc::new(scalar),)*
                    Repr::Shared(value) => value,
                }
            }

            /// The value by value, if it is a `T` and this is its only holder (no clone shares
            /// it); otherwise `self` back.
            ///
            /// # Errors
            /// `self`, when the value is not a `T` or is shared.
            pub fn downcast<T: Any + Send + Sync>(self) -> Result<T, Self> {
                match self.0 {
                    $(Repr::$variant(scalar) => {
                        let mut slot = Some(scalar);
                        if let Some(value) = (&mut slot as &mut dyn Any)
                            .downcast_mut::<Option<T>>()
                            .and_then(Option::take)
                        {
                            return Ok(value);
                        }
                        // Not a `T`: the value goes back as it was (only a `T` is taken out).
                        match slot {
                            Some(scalar) => Err(Native(Repr::$variant(scalar))),
                            None => Err(Native(Repr::Unit(()))),
                        }
                    })*
                    Repr::Shared(value) => match value.downcast::<T>() {
                        Ok(value) => Arc::try_unwrap(value)
                            .map_err(|value| Native(Repr::Shared(value))),
                        Err(value) => Err(Native(Repr::Shared(value))),
                    },
                }
            }
        }
    };
}

inline_scalars! {
    Unit(()),
    Bool(bool),
    Char(char),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Isize(isize),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(usize),
    F32(f32),
    F64(f64),
    Text(String),
}

impl Native {
    /// The value, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.as_any().downcast_ref()
    }

    /// Whether the value is a `T`.
    pub fn is<T: Any>(&self) -> bool {
        self.as_any().is::<T>()
    }
}

impl fmt::Debug for Native {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Native(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_boxed_values_come_back_as_themselves() {
        assert_eq!(Native::new(7_u32).downcast_ref::<u32>(), Some(&7));
        assert_eq!(Native::new(7_u32).downcast_ref::<u64>(), None);
        assert_eq!(Native::new(1.5_f64).downcast::<f64>().ok(), Some(1.5));
        assert_eq!(Native::new(()).downcast_ref::<()>(), Some(&()));
        assert_eq!(
            Native::new(String::from("x"))
                .downcast_ref::<String>()
                .map(String::as_str),
            Some("x")
        );
        let native = Native::new(vec![1, 2]);
        let native = native.downcast::<String>().unwrap_err();
        assert_eq!(native.downcast::<Vec<i32>>().ok(), Some(vec![1, 2]));
        assert_eq!(
            Native::new(3_u8)
                .downcast::<i8>()
                .unwrap_err()
                .downcast::<u8>()
                .ok(),
            Some(3)
        );
    }

    #[test]
    fn clones_share_the_value() {
        let native = Native::new(vec![String::from("shared")]);
        let copy = native.clone();
        assert!(std::ptr::eq(
            native.downcast_ref::<Vec<String>>().unwrap(),
            copy.downcast_ref::<Vec<String>>().unwrap()
        ));
        // Shared: not movable out until the other holder is gone.
        let native = native.downcast::<Vec<String>>().unwrap_err();
        drop(copy);
        assert_eq!(
            native.downcast::<Vec<String>>().ok(),
            Some(vec![String::from("shared")])
        );
    }

    #[test]
    fn text_is_held_inline_and_comes_back_whole() {
        // The commonest result beside scalars: no allocation of its own, a clone copies it.
        let native = Native::new(String::from("text"));
        let copy = native.clone();
        assert_eq!(
            copy.downcast_ref::<String>().map(String::as_str),
            Some("text")
        );
        let native = native.downcast::<i64>().unwrap_err();
        assert!(native.is::<String>());
        assert_eq!(native.downcast::<String>().ok().as_deref(), Some("text"));
        assert!(copy.into_arc().downcast::<String>().is_ok());
    }
}
