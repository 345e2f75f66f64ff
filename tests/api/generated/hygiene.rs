//! Generated code must not depend on what the user's scope calls `Result`, `Option`, `String`,
//! ..., nor on modules named like the crates it uses, and must not warn.

#![deny(warnings)]

mod shadowed {
    #![allow(dead_code, non_camel_case_types, clippy::all)]

    struct Result;
    struct Ok;
    struct Err;
    struct Option;
    struct Some;
    struct None;
    struct Box;
    struct String;
    struct Vec;
    struct Send;
    struct Sync;
    struct Future;
    mod toolwright {}
    mod toolwright_runtime {}
    mod core {}
    mod std {}
    mod serde {}
    mod schemars {}
    mod serde_json {}

    /// Greet someone, a few times.
    #[::toolwright::tool]
    pub fn greet(
        /// Who to greet.
        name: ::std::string::String,
        /// How many times; once when omitted.
        times: ::std::option::Option<u32>,
        #[tool(default)] excited: bool,
    ) -> ::std::result::Result<::std::vec::Vec<::std::string::String>, ::std::string::String> {
        let times = times.unwrap_or(1);
        if times > 3 {
            return ::std::result::Result::Err(::std::format!("{times} is too many"));
        }
        let mark = if excited { "!" } else { "." };
        ::std::result::Result::Ok(
            (0..times)
                .map(|_| ::std::format!("hello {name}{mark}"))
                .collect(),
        )
    }

    /// The time, for a context.
    #[::toolwright::tool(read_only)]
    pub async fn clock(
        #[tool(context)] now: &u64,
        #[tool(call_info)] info: &::toolwright::CallInfo,
    ) -> ::std::string::String {
        ::std::format!("{now} for {}", info.call_id())
    }

    /// The time, read the slow way, on its own thread, with a deadline and approval.
    #[::toolwright::tool(blocking, concurrent, timeout = "5s", needs_approval)]
    pub fn slow_clock(
        #[tool(context)] now: &u64,
        #[tool(call_info)] info: &::toolwright::CallInfo,
    ) -> ::std::string::String {
        ::std::format!(
            "{now} for {} (approved: {})",
            info.call_id(),
            info.is_approved()
        )
    }

    /// A service whose tools are methods.
    pub struct Greeter {
        pub greeting: ::std::string::String,
    }

    #[::toolwright::toolset]
    impl Greeter {
        /// Greet someone with the service's greeting.
        #[tool(read_only)]
        pub fn salute(&self, name: ::std::string::String) -> ::std::string::String {
            ::std::format!("{} {name}", self.greeting)
        }

        /// Greet someone later, on a thread of its own.
        #[tool(blocking, timeout = "5s")]
        pub fn salute_slowly(
            &self,
            name: ::std::string::String,
            #[tool(context)] now: &u64,
        ) -> ::std::string::String {
            ::std::format!("{} {name} at {now}", self.greeting)
        }
    }
}

#[test]
fn shadowed_names_do_not_break_a_toolsets_generated_code() {
    use toolwright::{ToolCall, Toolbox};

    let greeter = ::std::sync::Arc::new(shadowed::Greeter {
        greeting: "hi".into(),
    });
    let tools = Toolbox::<u64>::for_context()
        .with_all(greeter.toolset())
        .unwrap();
    let call = ToolCall::new("1", "salute", r#"{"name": "Ada"}"#);
    assert_eq!(tools.execute_blocking(&call, &7).text(), "hi Ada");
    let call = ToolCall::new("2", "salute_slowly", r#"{"name": "Ada"}"#);
    assert_eq!(tools.execute_blocking(&call, &7).text(), "hi Ada at 7");
}

#[test]
fn shadowed_names_do_not_break_generated_code() {
    use toolwright::{ToolCall, Toolbox};

    let tools = Toolbox::<u64>::for_context()
        .with(shadowed::GreetTool)
        .and_then(|t| t.with(shadowed::ClockTool))
        .and_then(|t| t.with(shadowed::SlowClockTool))
        .unwrap();
    let call = ToolCall::new("1", "greet", r#"{"name": "Ada", "times": 2}"#);
    assert_eq!(
        tools.execute_blocking(&call, &7).text(),
        r#"["hello Ada.","hello Ada."]"#
    );
    let call = ToolCall::new("2", "greet", r#"{"name": "Ada", "times": 9}"#);
    let result = tools.execute_blocking(&call, &7);
    assert!(result.is_error);
    assert_eq!(result.text(), "9 is too many");
    let call = ToolCall::new("3", "clock", "");
    assert_eq!(tools.execute_blocking(&call, &7).text(), "7 for 3");
    let call = ToolCall::new("4", "slow_clock", "");
    assert!(tools.execute_blocking(&call, &7).is_interrupt());
    assert_eq!(
        tools.approve_blocking(&call, &7).text(),
        "7 for 4 (approved: true)"
    );
}
