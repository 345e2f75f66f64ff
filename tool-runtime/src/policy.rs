//! How arguments are treated: the toolbox's [`ArgumentPolicy`] (repair, coercion, unknown
//! members, `null`, cut-off text, limits) and one run of parsing under it ([`ParseSession`]).

use crate::fixes::Fixes;
use toolwright_json::JsonLimits;

/// How a toolbox treats the arguments models send. A tool can override `repair` and `coerce`
/// for itself ([`ToolDefinition::with_repair`](crate::ToolDefinition::with_repair), `#[tool(repair = false)]`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[expect(
    clippy::struct_excessive_bools,
    reason = "Independent switches, each with its builder."
)]
pub struct ArgumentPolicy {
    /// Repair broken JSON with the lenient parser (default on). Off: broken JSON is an error.
    pub repair: bool,
    /// Coerce values toward the schema (default on). Off: a value of the wrong type is an error.
    pub coerce: bool,
    /// Drop arguments a tool does not declare (recorded as coercions) instead of refusing the
    /// call, for every tool (default off: each tool's `unknown_args` decides).
    pub ignore_unknown: bool,
    /// Take `null` for an optional argument as "not given", so its default applies (default
    /// on). Models send `null` for "no value", and OpenAI's strict mode, which makes every
    /// argument required and the optional ones nullable, has no other way to say it.
    pub null_as_absent: bool,
    /// Whether a call whose arguments ended early runs ([`CutOff`]; default: only tools
    /// annotated read-only).
    pub cut_off: CutOff,
    /// Bounds on the arguments text.
    pub limits: JsonLimits,
}

impl Default for ArgumentPolicy {
    fn default() -> Self {
        ArgumentPolicy {
            repair: true,
            coerce: true,
            ignore_unknown: false,
            null_as_absent: true,
            cut_off: CutOff::ReadOnly,
            limits: JsonLimits::default(),
        }
    }
}

/// What happens to a call whose arguments ended early: text that stops inside a string, object
/// or array (a stream cut, the model's output limit reached), or a streamed call whose block
/// never ended ([`CallStatus::Incomplete`](crate::CallStatus::Incomplete)).
///
/// Repair can close such text, but what it closes may not be what the model meant: a string
/// cut short is another value (`/home/user/tmp` becomes `/home/user`), and members after the cut
/// fall back to their defaults. So by default only a tool annotated read-only runs on it (a
/// wrong answer there is harmless and the model can ask again); any other tool is not run, and
/// the model is told where its arguments stopped and to send the whole call again
/// ([`ArgumentError::CutOff`](crate::args::ArgumentError::CutOff), [`ArgumentError::IncompleteCall`](crate::args::ArgumentError::IncompleteCall)). Repairs that cannot change
/// meaning (quotes, trailing commas, comments, code fences) are not affected.
///
/// Set per toolbox ([`ArgumentPolicy::cut_off`]) or per tool (`#[tool(cut_off = "run")]`,
/// [`ToolDefinition::with_cut_off`](crate::ToolDefinition::with_cut_off)).
///
/// ```
/// use toolwright::{ToolCall, Toolbox, tool, args::{ArgumentError}};
///
/// /// Write a note.
/// #[tool]
/// fn create_note(path: String, text: String) -> String {
///     format!("wrote {path}")
/// }
///
/// let tools = Toolbox::new().with(CreateNoteTool).unwrap();
/// // The model's output limit was reached inside the text.
/// let call = ToolCall::new("c1", "create_note", r#"{"path": "/home/user/tmp", "text": "Dear"#);
/// let result = tools.execute_blocking(&call, &());
/// assert!(result.is_error);
/// assert!(matches!(result.argument_error(), Some(ArgumentError::CutOff { .. })));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CutOff {
    /// Run only tools annotated read-only (`#[tool(read_only)]`); refuse the rest (the
    /// default).
    #[default]
    ReadOnly,
    /// Close the arguments and run whatever the tool.
    Run,
    /// Never run on arguments that ended early.
    Refuse,
}

impl CutOff {
    /// Whether a call that ended early runs, for a tool that is (or is not) read-only.
    pub fn runs(self, read_only: bool) -> bool {
        match self {
            CutOff::ReadOnly => read_only,
            CutOff::Run => true,
            CutOff::Refuse => false,
        }
    }
}

impl ArgumentPolicy {
    /// The default policy: repair and coercion on, unknown arguments per tool.
    pub fn new() -> Self {
        ArgumentPolicy::default()
    }

    /// Turns JSON repair on or off.
    pub fn repair(mut self, on: bool) -> Self {
        self.repair = on;
        self
    }

    /// Turns coercion on or off.
    pub fn coerce(mut self, on: bool) -> Self {
        self.coerce = on;
        self
    }

    /// Takes `null` for an optional argument as "not given", or as a value.
    pub fn null_as_absent(mut self, on: bool) -> Self {
        self.null_as_absent = on;
        self
    }

    /// Drops unknown arguments for every tool, or leaves it to each tool.
    pub fn ignore_unknown(mut self, on: bool) -> Self {
        self.ignore_unknown = on;
        self
    }

    /// Sets what happens to calls whose arguments ended early ([`CutOff`]).
    pub fn cut_off(mut self, rule: CutOff) -> Self {
        self.cut_off = rule;
        self
    }

    /// Sets the bounds on the arguments text.
    pub fn limits(mut self, limits: JsonLimits) -> Self {
        self.limits = limits;
        self
    }
}

/// One run of argument parsing: the policy it runs under, and what it fixed.
#[derive(Debug, Clone, Default)]
pub struct ParseSession {
    /// The toolbox's policy (a tool's overrides are applied on top).
    pub policy: ArgumentPolicy,
    /// What was repaired and coerced.
    pub fixes: Fixes,
}

impl ParseSession {
    /// A session under `policy`.
    pub fn new(policy: ArgumentPolicy) -> Self {
        ParseSession {
            policy,
            fixes: Fixes::default(),
        }
    }
}
