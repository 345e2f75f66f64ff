//! `#[toolset]` through the public API: methods as tools sharing their service, every `#[tool]`
//! option on methods, registration together with free tools and other toolsets, prefixes.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwright::{
    CallInfo, RegisterError, ToolCall, Toolbox, dynamic::IntoTools, exec::Decision,
    provider::Provider, tool, toolset,
};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
struct Item {
    /// The item's name.
    name: String,
    /// How many there are.
    count: u32,
}

/// An in-memory inventory.
#[derive(Default)]
struct Inventory {
    items: Mutex<BTreeMap<String, Item>>,
    calls: AtomicUsize,
}

#[derive(Debug)]
struct NotFound(String);

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no item named `{}`", self.0)
    }
}

impl std::error::Error for NotFound {}

#[toolset]
impl Inventory {
    /// Look an item up by name.
    #[tool(read_only)]
    fn get(&self, name: String) -> Result<Item, NotFound> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.items
            .lock()
            .unwrap()
            .get(&name)
            .cloned()
            .ok_or(NotFound(name))
    }

    /// Add items, creating the entry when it is new.
    #[tool(name = "add_items", idempotent = false)]
    async fn add(
        &self,
        /// The item's name.
        #[tool(rename = "item")]
        name: String,
        /// How many to add.
        #[tool(default = 1)]
        count: u32,
    ) -> Item {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let mut items = self.items.lock().unwrap();
        let item = items.entry(name.clone()).or_insert(Item { name, count: 0 });
        item.count += count;
        item.clone()
    }

    /// Count every item, the slow way.
    #[tool(blocking, timeout = "5s")]
    fn total(&self) -> u32 {
        self.items.lock().unwrap().values().map(|i| i.count).sum()
    }

    /// Remove an item.
    #[tool(destructive, needs_approval)]
    fn remove(&self, name: String) -> bool {
        self.items.lock().unwrap().remove(&name).is_some()
    }

    /// Say which call this is.
    #[tool]
    fn which(#[tool(call_info)] info: &CallInfo) -> String {
        info.call_id().to_owned()
    }

    /// Not a tool.
    fn names(&self) -> Vec<String> {
        self.items.lock().unwrap().keys().cloned().collect()
    }

    /// Also not a tool.
    const LIMIT: usize = 10;
}

/// A file root, whose tools read the application's context.
struct Files {
    root: String,
}

struct App {
    user: String,
}

#[toolset]
impl Files {
    /// Read a file under the root.
    #[tool(read_only)]
    fn get(&self, path: String, #[tool(context)] app: &App) -> String {
        format!("{}/{path} for {}", self.root, app.user)
    }

    /// Where the root is.
    #[tool]
    #[deprecated(since = "0.2.0", note = "use `get`")]
    async fn root(&self, #[tool(context)] app: &App) -> String {
        format!("{} ({})", self.root, app.user)
    }
}

/// A calculator whose `sum` reads "2+3" as well as `{"a": 2, "b": 3}`.
struct Calc {
    offset: i64,
}

/// A method's typed arguments, named through its handle.
type SumArgs = <CalcSumTool as toolwright::Tool>::Args;

fn parse_sum(args: &Value) -> Result<SumArgs, String> {
    match args.get("expression").and_then(Value::as_str) {
        Some(text) => {
            let (a, b) = text.split_once('+').ok_or("write the sum as `a+b`")?;
            let number = |s: &str| s.trim().parse::<i64>().map_err(|e| e.to_string());
            Ok(SumArgs {
                a: number(a)?,
                b: number(b)?,
            })
        }
        None => serde_json::from_value(args.clone()).map_err(|e| e.to_string()),
    }
}

#[toolset]
impl Calc {
    /// Add two integers (and the calculator's offset).
    #[tool(parse_args = parse_sum)]
    fn sum(&self, a: i64, b: i64) -> i64 {
        a + b + self.offset
    }
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(format!("call_{name}"), name, arguments.to_string())
}

#[test]
fn methods_are_tools_over_one_shared_service() {
    let inventory = Arc::new(Inventory::default());
    let tools = Toolbox::new()
        .with_all(Arc::clone(&inventory).toolset())
        .unwrap()
        .with(AddTool)
        .unwrap();
    assert_eq!(
        tools.definitions().map(|d| d.name()).collect::<Vec<_>>(),
        ["get", "add_items", "total", "remove", "which", "add"]
    );

    let added =
        tools.execute_blocking(&call("add_items", json!({"item": "bolt", "count": 3})), &());
    assert!(!added.is_error, "{}", added.text());
    assert_eq!(
        added.native::<Item>(),
        Some(&Item {
            name: "bolt".into(),
            count: 3
        })
    );
    // The default of a method's parameter.
    tools.execute_blocking(&call("add_items", json!({"item": "bolt"})), &());
    let got = tools.execute_blocking(&call("get", json!({"name": "bolt"})), &());
    assert_eq!(
        serde_json::from_str::<Value>(&got.text()).unwrap(),
        json!({"name": "bolt", "count": 4})
    );
    let total = tools.execute_blocking(&call("total", json!({})), &());
    assert_eq!(total.text(), "4");
    let which = tools.execute_blocking(&call("which", json!({})), &());
    assert_eq!(which.text(), "call_which");

    // The service the tools share is the application's: its state, and its methods, as written.
    assert_eq!(inventory.names(), ["bolt"]);
    assert_eq!(inventory.calls.load(Ordering::Relaxed), 3);
    // Its other items stay what they were, not tools: a method and a constant.
    assert!(tools.get("names").is_none() && tools.get("LIMIT").is_none());
    assert!(inventory.names().len() < Inventory::LIMIT);

    // The error type's Display reaches the model, as for free fns.
    let missing = tools.execute_blocking(&call("get", json!({"name": "nut"})), &());
    assert!(missing.is_error);
    assert_eq!(missing.text(), "no item named `nut`");

    // Argument feedback names the method's arguments, under their renamed names.
    let wrong = tools.execute_blocking(&call("add_items", json!({"name": "bolt"})), &());
    assert!(wrong.is_error);
    assert!(
        wrong.text().contains("unknown argument `name`"),
        "{}",
        wrong.text()
    );
    assert!(wrong.text().contains("`item`"), "{}", wrong.text());
}

#[test]
fn every_tool_option_reaches_a_methods_definition() {
    let tools = Toolbox::new()
        .with_all(Arc::new(Inventory::default()).toolset())
        .unwrap();
    let get = tools.get("get").unwrap().definition();
    assert_eq!(get.description(), "Look an item up by name.");
    assert_eq!(get.annotations().read_only, Some(true));
    assert_eq!(get.output_schema().unwrap()["type"], "object");
    let add = tools.get("add_items").unwrap().definition();
    assert_eq!(add.required_param_names(), ["item"]);
    assert_eq!(
        add.parameters()["properties"]["count"]["description"],
        "How many to add."
    );
    assert_eq!(add.annotations().idempotent, Some(false));
    let total = tools.get("total").unwrap().definition();
    assert_eq!(total.timeout(), Some(std::time::Duration::from_secs(5)));
    let remove = tools.get("remove").unwrap().definition();
    assert!(remove.needs_approval());
    assert_eq!(remove.annotations().destructive, Some(true));
}

#[test]
fn approval_holds_a_method_until_decided() {
    let inventory = Arc::new(Inventory::default());
    let tools = Toolbox::new()
        .with_all(Arc::clone(&inventory).toolset())
        .unwrap();
    tools.execute_blocking(&call("add_items", json!({"item": "bolt"})), &());
    let calls = [call("remove", json!({"name": "bolt"}))];
    let mut results = tools.execute_all_blocking(&calls, &());
    assert!(results[0].interrupt().is_some());
    assert_eq!(inventory.names(), ["bolt"]);
    tools.resolve_interrupts_blocking(&calls, &mut results, &(), |_, _| Some(Decision::Approve));
    assert_eq!(results[0].text(), "true");
    assert!(inventory.names().is_empty());
}

#[test]
fn a_toolset_with_a_context_registers_in_that_contexts_toolbox() {
    let files = Arc::new(Files {
        root: "/srv".into(),
    });
    let tools = Toolbox::<App>::for_context()
        .with_all(files.toolset())
        .unwrap()
        .with(AddTool)
        .unwrap();
    let app = App { user: "ada".into() };
    let read = tools.execute_blocking(&call("get", json!({"path": "a.txt"})), &app);
    assert_eq!(read.text(), "/srv/a.txt for ada");
    let root = tools.execute_blocking(&call("root", json!({})), &app);
    assert_eq!(root.text(), "/srv (ada)");
    // A deprecated method is offered, and the model told.
    let openai = tools.tools_for(Provider::OpenAiChat).unwrap();
    assert_eq!(
        openai.entries()[1]["function"]["description"],
        "Deprecated since 0.2.0: use `get`. Where the root is."
    );
}

#[test]
fn prefixes_keep_two_services_tools_apart() {
    let inventory = Arc::new(Inventory::default());
    let files = Arc::new(Files {
        root: "/srv".into(),
    });

    // Both have a `get`: registered together unprefixed, every clash is told, none registered.
    let mut tools = Toolbox::<App>::for_context();
    tools.register(AddTool).unwrap();
    let clash = tools
        .register_all(
            Arc::clone(&inventory)
                .toolset()
                .into_tools()
                .into_iter()
                .chain(Arc::clone(&files).toolset().into_tools())
                .chain([toolwright::dynamic::erase(AddTool)])
                .collect::<Vec<_>>(),
        )
        .unwrap_err();
    assert_eq!(
        clash,
        RegisterError::Several(vec![
            RegisterError::DuplicateName("get".into()),
            RegisterError::DuplicateName("add".into()),
        ])
    );
    assert_eq!(tools.len(), 1);

    let tools = Toolbox::<App>::for_context()
        .with_all(Arc::clone(&inventory).toolset().prefixed("stock_"))
        .unwrap()
        .with_all(
            files
                .toolset()
                .prefixed("files_")
                .retain(|name| name != "root"),
        )
        .unwrap();
    assert_eq!(
        tools.definitions().map(|d| d.name()).collect::<Vec<_>>(),
        [
            "stock_get",
            "stock_add_items",
            "stock_total",
            "stock_remove",
            "stock_which",
            "files_get"
        ]
    );
    let app = App { user: "ada".into() };
    let read = tools.execute_blocking(&call("files_get", json!({"path": "b"})), &app);
    assert_eq!(read.text(), "/srv/b for ada");
    assert_eq!(read.tool_name, "files_get");

    // The prefixed name is the one every message and provider form carries.
    let wrong = tools.execute_blocking(&call("stock_get", json!({})), &app);
    assert!(
        wrong
            .text()
            .starts_with("invalid arguments for tool `stock_get`"),
        "{}",
        wrong.text()
    );
    let openai = tools.tools_for(Provider::OpenAiChat).unwrap();
    let names: Vec<&str> = openai
        .entries()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "stock_get");
    assert_eq!(names[5], "files_get");
}

#[test]
fn a_toolset_lists_its_names_before_registration() {
    let set = Arc::new(Inventory::default())
        .toolset::<()>()
        .prefixed("b_")
        .prefixed("a_");
    assert_eq!(set.len(), 5);
    assert_eq!(
        set.names().collect::<Vec<_>>(),
        [
            "a_b_get",
            "a_b_add_items",
            "a_b_total",
            "a_b_remove",
            "a_b_which"
        ]
    );
    assert!(format!("{set:?}").contains("Inventory"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_share_the_service() {
    let inventory = Arc::new(Inventory::default());
    let tools = Toolbox::new()
        .with_all(Arc::clone(&inventory).toolset())
        .unwrap();
    let calls: Vec<ToolCall> = (0..20)
        .map(|i| {
            ToolCall::new(
                format!("c{i}"),
                "add_items",
                json!({"item": format!("i{}", i % 4)}).to_string(),
            )
        })
        .collect();
    let results = tools.execute_all(&calls, &()).await;
    assert!(results.iter().all(|r| !r.is_error));
    let total = tools.execute(&call("total", json!({})), &()).await;
    assert_eq!(total.text(), "20");
}

#[test]
fn a_method_can_have_a_parser_of_its_own() {
    let tools = Toolbox::new()
        .with_all(Arc::new(Calc { offset: 100 }).toolset())
        .unwrap();
    let text = tools.execute_blocking(&call("sum", json!({"expression": "2+3"})), &());
    assert_eq!(text.text(), "105");
    let object = tools.execute_blocking(&call("sum", json!({"a": 1, "b": 1})), &());
    assert_eq!(object.text(), "102");
    let wrong = tools.execute_blocking(&call("sum", json!({"expression": "2*3"})), &());
    assert!(wrong.is_error);
    assert!(
        wrong.text().ends_with("write the sum as `a+b`"),
        "{}",
        wrong.text()
    );
}
