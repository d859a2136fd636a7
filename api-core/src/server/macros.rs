//! The declarations a generated crate writes: `server_request!`, `server_reply!`, `server_api!`.

/// Implements [`Request`] for a generated request type: its row, and a field per parameter, read by
/// name: `required` (path parameters, required query parameters), `defaulted` (optional, with a
/// default), `optional`, `lists` (an optional array: the parameter repeated) and `required_lists`.
#[macro_export]
macro_rules! server_request {
    (
        $ty:ty = $operation:expr,
        required: [$($p:ident = $pn:literal),* $(,)?],
        defaulted: [$($d:ident = $dn:literal),* $(,)?],
        optional: [$($o:ident = $on:literal),* $(,)?],
        lists: [$($l:ident = $ln:literal),* $(,)?],
        required_lists: [$($r:ident = $rn:literal),* $(,)?] $(,)?
    ) => {
        impl $crate::server::Request for $ty {
            const ROW: &'static $crate::server::Operation = &$operation;

            fn from_arguments(arguments: &mut $crate::server::Arguments) -> ::std::option::Option<Self> {
                $(let $p = arguments.required($pn);)*
                $(let $d = arguments.optional($dn);)*
                $(let $o = arguments.optional_plain($on);)*
                $(let $l = arguments.list($ln);)*
                $(let $r = arguments.required_list($rn);)*
                if !arguments.finish() {
                    return ::std::option::Option::None;
                }
                ::std::option::Option::Some(Self {
                    $($p: $p?,)*
                    $($d,)*
                    $($o,)*
                    $($l,)*
                    $($r: $r?,)*
                })
            }
        }
    };
}

/// Implements [`Reply`] for a generated response enum: each variant's status, and which hold a page.
#[macro_export]
macro_rules! server_reply {
    ($ty:ident { $($variant:ident = $status:literal $($paged:ident)?),* $(,)? }) => {
        impl $crate::server::Reply for $ty {
            fn status(&self) -> u16 {
                match self {
                    $(Self::$variant(_) => $status,)*
                }
            }

            fn page(&mut self) -> ::std::option::Option<&mut dyn $crate::server::Paged> {
                match self {
                    $(Self::$variant(_value) => $crate::server_reply!(@page _value $($paged)?),)*
                }
            }

            fn to_json(&self) -> ::std::result::Result<::std::vec::Vec<u8>, ::std::string::String> {
                match self {
                    $(Self::$variant(value) => $crate::__private::serde_json::to_vec(value).map_err(|e| e.to_string()),)*
                }
            }
        }
    };
    (@page $value:ident paged) => { ::std::option::Option::Some($value) };
    (@page $value:ident) => { ::std::option::Option::None };
}

/// Declares the handlers' trait of an API (one `async fn` per operation, taking its request type and,
/// for those with a `principal: Principal` parameter, the authenticated principal), and `routes`, its
/// operations for a router.
#[macro_export]
macro_rules! server_api {
    (
        $(#[$meta:meta])*
        pub trait $api:ident {
            $(
                $(#[$op_meta:meta])*
                fn $op:ident($($params:tt)*) -> $response:ty;
            )*
        }
    ) => {
        $(#[$meta])*
        pub trait $api: ::std::marker::Send + ::std::marker::Sync + 'static {
            /// Who made a request, as the server's authentication check found: what the operations
            /// that require authentication receive.
            type Principal: ::std::marker::Send + ::std::marker::Sync + 'static;
            $(
                $crate::server_api!(@method $(#[$op_meta])* $op ($($params)*) $response);
            )*
        }

        /// Every operation of the handlers' trait, for a router: its row, and how a request is read
        /// and handed to its handler.
        pub fn routes<A: $api>() -> ::std::vec::Vec<$crate::server::Route<A, A::Principal>> {
            ::std::vec![
                $($crate::server_api!(@route $op ($($params)*)),)*
            ]
        }
    };
    (@method $(#[$m:meta])* $op:ident (request: $request:ty, $principal:ident: Principal $(,)?) $response:ty) => {
        $(#[$m])*
        fn $op(
            &self,
            request: $request,
            $principal: &Self::Principal,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<$response, $crate::server::ServerError>,
        > + ::std::marker::Send;
    };
    (@method $(#[$m:meta])* $op:ident (request: $request:ty $(,)?) $response:ty) => {
        $(#[$m])*
        fn $op(
            &self,
            request: $request,
        ) -> impl ::std::future::Future<
            Output = ::std::result::Result<$response, $crate::server::ServerError>,
        > + ::std::marker::Send;
    };
    (@route $op:ident (request: $request:ty, $principal:ident: Principal $(,)?)) => {
        $crate::server::Route::new::<$request>(|api, request, principal| {
            ::std::boxed::Box::pin(async move {
                let ::std::option::Option::Some($principal) = principal else {
                    return ::std::result::Result::Err($crate::server::ServerError::unauthorized(
                        "this operation requires authentication",
                        "Basic realm=\"energy\"",
                    ));
                };
                let response = api.$op(request, $principal).await?;
                ::std::result::Result::Ok(::std::boxed::Box::new(response)
                    as ::std::boxed::Box<dyn $crate::server::Reply>)
            })
        })
    };
    (@route $op:ident (request: $request:ty $(,)?)) => {
        $crate::server::Route::new::<$request>(|api, request, _principal| {
            ::std::boxed::Box::pin(async move {
                let response = api.$op(request).await?;
                ::std::result::Result::Ok(::std::boxed::Box::new(response)
                    as ::std::boxed::Box<dyn $crate::server::Reply>)
            })
        })
    };
}
