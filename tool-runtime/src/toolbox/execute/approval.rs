//! Calls held for a person: the rules that hold them, and approving, rejecting or resolving
//! them.

use std::sync::Arc;

use serde_json::Value;

use crate::call::{ToolCall, ToolName};
use crate::caller::Caller;
use crate::output::Interrupt;
use crate::result::{ResultDetail, ToolResult};
use crate::task::{Cancellation, Signals, block_on};
use crate::tool::Tool;
use crate::toolbox::{ApprovalRule, RegisterError, Toolbox};
use toolwright_json::echo;

/// What a person decided about a held call ([`Toolbox::resolve_interrupts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Approve,
    /// Do not run it; the model is told so, with this reason (empty: no reason given).
    Reject(String),
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Makes calls of `tool` wait for approval when `rule` says so, given the call's arguments as
    /// the tool will get them (repaired and coerced) and the context. Such a call's result is an
    /// [`Interrupt`] until [`approve`](Self::approve) or [`reject`](Self::reject) answers it.
    ///
    /// # Errors
    /// When no tool of that name is registered.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("pay", "Pay someone.", json!({
    ///     "type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"],
    /// }))
    /// .unwrap();
    /// let tools = Toolbox::new()
    ///     .with(DynamicTool::new(def, |_, _: &()| "paid".to_owned()))
    ///     .unwrap()
    ///     .needs_approval_when("pay", |args, _| args["amount"].as_f64() > Some(100.0))
    ///     .unwrap();
    /// let small = tools.execute_blocking(&ToolCall::new("c1", "pay", r#"{"amount": 5}"#), &());
    /// assert_eq!(small.text(), "paid");
    /// // Coerced before the rule sees it: "250" is the number 250.
    /// let large = ToolCall::new("c2", "pay", r#"{"amount": "250"}"#);
    /// let held = tools.execute_blocking(&large, &());
    /// assert_eq!(held.interrupt().unwrap().data, json!({"amount": 250}));
    /// assert_eq!(tools.approve_blocking(&large, &()).text(), "paid");
    /// ```
    pub fn needs_approval_when(
        self,
        tool: &str,
        rule: impl Fn(&Value, &C) -> bool + Send + Sync + 'static,
    ) -> Result<Self, RegisterError> {
        self.approval_rule(tool, Arc::new(move |json, _, ctx| rule(json, ctx)))
    }

    /// Makes calls of the tool `tool` wait for approval when `rule` says so, given the call's
    /// typed arguments (a `#[tool]` fn's are `<name as Tool>::Args`, with a field per argument)
    /// and the context. As [`needs_approval_when`](Self::needs_approval_when) otherwise.
    ///
    /// # Errors
    /// When no tool of that name is registered.
    ///
    /// With `#[tool] fn transfer(amount: u32, ..)`, that reads
    /// `.needs_approval_if(&TransferTool, |args, _| args.amount > 100)`. A dynamic tool's arguments
    /// are a JSON map:
    ///
    /// ```
    /// use serde_json::{Map, Value, json};
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// fn pay() -> DynamicTool {
    ///     let def = ToolDefinition::new("pay", "Pay someone.", json!({
    ///         "type": "object", "properties": {"amount": {"type": "integer"}},
    ///     }))
    ///     .unwrap();
    ///     DynamicTool::new(def, |_, _: &()| "paid".to_owned())
    /// }
    ///
    /// let tools = Toolbox::new()
    ///     .with(pay())
    ///     .unwrap()
    ///     .needs_approval_if(&pay(), |args: &Map<String, Value>, _| args["amount"].as_i64() > Some(100))
    ///     .unwrap();
    /// assert!(tools.execute_blocking(&ToolCall::new("c1", "pay", r#"{"amount": 500}"#), &()).is_interrupt());
    /// assert_eq!(tools.execute_blocking(&ToolCall::new("c2", "pay", r#"{"amount": 5}"#), &()).text(), "paid");
    /// ```
    pub fn needs_approval_if<T: Tool<C>>(
        self,
        tool: &T,
        rule: impl Fn(&T::Args, &C) -> bool + Send + Sync + 'static,
    ) -> Result<Self, RegisterError> {
        let name = tool.definition().name().to_owned();
        self.approval_rule(
            &name,
            Arc::new(move |_, parsed, ctx| {
                // Arguments of another type: another tool answers to the name; ask, to be safe.
                parsed
                    .downcast_ref::<T::Args>()
                    .is_none_or(|args| rule(args, ctx))
            }),
        )
    }

    fn approval_rule(
        mut self,
        tool: &str,
        rule: Arc<ApprovalRule<C>>,
    ) -> Result<Self, RegisterError> {
        let index = self
            .index_of(tool)
            .ok_or_else(|| RegisterError::UnknownTool(tool.to_owned()))?;
        self.approval_rules.push((index, rule));
        self.states[index].gated = true;
        Ok(self)
    }

    /// Runs a call that was held for approval (or whose tool asked for it with an
    /// [`Interrupt`]): its arguments are parsed again, as at any execution, and the body sees
    /// [`CallInfo::is_approved`](crate::CallInfo::is_approved). Hooks, the timeout and the retry budget apply as usual.
    pub async fn approve(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        let (index, tool) = match self.lookup(call) {
            Ok(found) => found,
            Err(result) => return self.refused(call, result),
        };
        self.run_gated(index, tool, call, ctx, Signals::none(), true)
            .await
    }

    /// [`approve`](Self::approve) for a call made on behalf of `caller`: as in a batch run
    /// [`on_behalf_of`](crate::exec::BatchOptions::on_behalf_of) it, a tool whose scopes the caller
    /// lacks is unknown to it, and the body sees the caller
    /// ([`CallInfo::caller`](crate::CallInfo::caller)).
    pub async fn approve_for(&self, call: &ToolCall, ctx: &C, caller: &Caller) -> ToolResult {
        let (index, tool) = match self.lookup_for(call, Some(caller)) {
            Ok(found) => found,
            Err(result) => return self.refused(call, result),
        };
        let caller = Arc::new(caller.clone());
        let signals = Signals {
            cancellation: Cancellation::never(),
            progress: None,
            caller: Some(&caller),
            conversation: None,
        };
        self.run_gated(index, tool, call, ctx, signals, true).await
    }

    /// [`approve`](Self::approve) for sync callers, as [`execute_blocking`](Self::execute_blocking).
    pub fn approve_blocking(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        block_on(self.approve(call, ctx))
    }

    /// Resolves a batch's held calls in place: for each result that is an [`Interrupt`] (a
    /// call held for approval, or a tool that asked for it), `decide` is asked, with the call
    /// and the interrupt, and the result is replaced by the approved call's run
    /// ([`approve`](Self::approve)) or the rejection ([`reject`](Self::reject)); `None` leaves
    /// it held. Every other result stays as it is, so the results keep the calls' order, ready
    /// to be encoded back for the model. A result is paired with its call by the call id.
    ///
    /// ```
    /// use std::collections::HashMap;
    ///
    /// use toolwright::{ToolCall, Toolbox, exec::Decision};
    /// # use toolwright::{DynamicTool, ToolDefinition, dynamic::erase};
    /// # use serde_json::{Map, Value, json};
    /// # let definition = ToolDefinition::new("delete", "Delete a file.", json!({"type": "object"}))
    /// #     .unwrap()
    /// #     .with_needs_approval(true);
    /// # let delete = DynamicTool::new(definition, |_: Map<String, Value>, _: &()| "deleted".to_owned());
    /// let tools = Toolbox::new().with(delete).unwrap();
    /// let calls = [ToolCall::new("c1", "delete", "{}"), ToolCall::new("c2", "delete", "{}")];
    /// let mut results = tools.execute_all_blocking(&calls, &());
    /// assert!(results.iter().all(|r| r.is_interrupt()));
    ///
    /// // A person's decisions, by call id.
    /// let decisions = HashMap::from([
    ///     ("c1", Decision::Approve),
    ///     ("c2", Decision::Reject("not today".into())),
    /// ]);
    /// tools.resolve_interrupts_blocking(&calls, &mut results, &(), |call, _| {
    ///     decisions.get(call.call_id.as_str()).cloned()
    /// });
    /// assert_eq!(results[0].text(), "deleted");
    /// assert!(results[1].text().contains("not today"));
    /// ```
    pub async fn resolve_interrupts(
        &self,
        calls: &[ToolCall],
        results: &mut [ToolResult],
        ctx: &C,
        mut decide: impl FnMut(&ToolCall, &Interrupt) -> Option<Decision>,
    ) {
        for result in results.iter_mut() {
            let Some(interrupt) = result.interrupt() else {
                continue;
            };
            let Some(call) = calls.iter().find(|call| call.call_id == result.call_id) else {
                continue;
            };
            match decide(call, interrupt) {
                Some(Decision::Approve) => *result = self.approve(call, ctx).await,
                Some(Decision::Reject(reason)) => *result = self.reject(call, reason),
                None => {}
            }
        }
    }

    /// [`resolve_interrupts`](Self::resolve_interrupts) for sync callers, as
    /// [`execute_blocking`](Self::execute_blocking).
    pub fn resolve_interrupts_blocking(
        &self,
        calls: &[ToolCall],
        results: &mut [ToolResult],
        ctx: &C,
        decide: impl FnMut(&ToolCall, &Interrupt) -> Option<Decision>,
    ) {
        block_on(self.resolve_interrupts(calls, results, ctx, decide));
    }

    /// The final result of a call a person rejected: an error telling the model so, with the
    /// reason (the tool does not run).
    pub fn reject(&self, call: &ToolCall, reason: impl Into<String>) -> ToolResult {
        let reason = reason.into();
        let name = match self.index_of(&call.name) {
            Some(index) => self.tools[index].definition().shared_name(),
            None => ToolName::from(call.name.as_str()),
        };
        let mut message = format!("the user rejected this call of {}", echo::Name(&name));
        if reason.is_empty() {
            message.push('.');
        } else {
            message.push_str(&format!(": {reason}"));
        }
        let result = ToolResult::error(
            &call.call_id,
            name,
            message,
            ResultDetail::Rejected {
                reason: reason.into_boxed_str(),
            },
        );
        self.refused(call, result)
    }
}
