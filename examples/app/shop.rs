//! The application's service: a shop's back office, with its orders and stock in memory (a
//! database in a real one) and a root of documents on disk. Its tools are its methods, through
//! `#[toolset]`; the state they share is `self`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context as _, bail};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright::{tool, toolset};

/// Who is calling, per request: the toolbox's context.
pub struct Session {
    pub user: String,
}

/// Where an order is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Paid,
    Shipped,
    Cancelled,
}

/// Who ordered.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Customer {
    /// Full name.
    #[schemars(length(min = 1, max = 80))]
    pub name: String,
    /// Where the receipt goes.
    #[schemars(email)]
    pub email: String,
}

/// One line of an order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Line {
    /// Stock-keeping unit, like "MUG-01".
    #[schemars(regex(pattern = r"^[A-Z]+-[0-9]{2}$"))]
    pub sku: String,
    /// How many, 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    pub quantity: u32,
}

/// How an order reaches the customer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Delivery {
    /// Collected at one of the shop's stores.
    Pickup {
        /// The store's city.
        store: String,
    },
    /// Brought by courier.
    Courier {
        /// Street address.
        address: String,
        /// The day, as YYYY-MM-DD.
        #[schemars(extend("format" = "date"))]
        date: String,
    },
}

/// An order to place.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NewOrder {
    pub customer: Customer,
    /// What is ordered: at least one line.
    #[schemars(length(min = 1))]
    pub lines: Vec<Line>,
    pub delivery: Delivery,
    /// A note for the packers.
    #[serde(default)]
    pub note: Option<String>,
}

/// An order as the shop keeps it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Order {
    pub id: u64,
    pub customer: Customer,
    pub lines: Vec<Line>,
    pub delivery: Delivery,
    pub status: Status,
    /// The total, in euro cents.
    pub total_cents: u64,
    /// The note for the packers, if any.
    pub note: Option<String>,
}

/// An order in a list.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OrderSummary {
    pub id: u64,
    pub customer: String,
    pub status: Status,
    pub total_cents: u64,
}

/// What to look for: an order number, or words of a customer's name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Query {
    /// An order number.
    Id(u64),
    /// Words of the customer's name.
    Words {
        /// Any words of the name, in any case.
        words: String,
    },
}

/// What can go wrong in the shop: told to the model as its `Display`, kept typed for the
/// application.
#[derive(Debug, thiserror::Error)]
pub enum ShopError {
    #[error("no order {0}; `find_orders` lists the orders")]
    NoSuchOrder(u64),
    #[error("order {id} is {from:?} and cannot become {to:?}")]
    BadTransition { id: u64, from: Status, to: Status },
    #[error("unknown SKU `{0}`; the catalogue has MUG-01, TEE-02 and CAP-03")]
    UnknownSku(String),
    #[error("not enough `{sku}` in stock: {left} left, {wanted} wanted")]
    OutOfStock { sku: String, left: u32, wanted: u32 },
    #[error("no exchange rate for `{0}`")]
    NoRate(String),
}

/// The shop: every tool's shared state.
pub struct Shop {
    orders: RwLock<BTreeMap<u64, Order>>,
    /// Units and unit price in cents, by SKU.
    stock: RwLock<BTreeMap<String, (u32, u64)>>,
    next_id: AtomicU64,
    root: PathBuf,
}

impl Shop {
    /// A shop with a few orders, and its documents under `root`.
    pub fn open(root: PathBuf) -> std::io::Result<Shop> {
        fs::create_dir_all(root.join("policies"))?;
        fs::write(
            root.join("policies/returns.md"),
            "Returns are accepted within 30 days, unused and in their box.",
        )?;
        let stock = [
            ("MUG-01", (40, 1200)),
            ("TEE-02", (12, 2500)),
            ("CAP-03", (0, 1800)),
        ]
        .into_iter()
        .map(|(sku, entry)| (sku.to_owned(), entry))
        .collect();
        let shop = Shop {
            orders: RwLock::new(BTreeMap::new()),
            stock: RwLock::new(stock),
            next_id: AtomicU64::new(1001),
            root,
        };
        for (name, email, status) in [
            ("Grace Hopper", "grace@example.com", Status::Shipped),
            ("Alan Turing", "alan@example.com", Status::Open),
        ] {
            let order = NewOrder {
                customer: Customer {
                    name: name.into(),
                    email: email.into(),
                },
                lines: vec![Line {
                    sku: "MUG-01".into(),
                    quantity: 1,
                }],
                delivery: Delivery::Pickup {
                    store: "Lisbon".into(),
                },
                note: None,
            };
            let placed = shop.place(order).map_err(std::io::Error::other)?;
            shop.orders
                .write()
                .unwrap()
                .entry(placed.id)
                .and_modify(|o| o.status = status);
        }
        Ok(shop)
    }

    fn place(&self, order: NewOrder) -> Result<Order, ShopError> {
        let mut stock = self.stock.write().unwrap();
        let mut total_cents = 0;
        for line in &order.lines {
            let Some(&(left, price)) = stock.get(&line.sku) else {
                return Err(ShopError::UnknownSku(line.sku.clone()));
            };
            if left < line.quantity {
                return Err(ShopError::OutOfStock {
                    sku: line.sku.clone(),
                    left,
                    wanted: line.quantity,
                });
            }
            total_cents += price * u64::from(line.quantity);
        }
        for line in &order.lines {
            if let Some(entry) = stock.get_mut(&line.sku) {
                entry.0 -= line.quantity;
            }
        }
        let placed = Order {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            customer: order.customer,
            lines: order.lines,
            delivery: order.delivery,
            status: Status::Open,
            total_cents,
            note: order.note,
        };
        self.orders
            .write()
            .unwrap()
            .insert(placed.id, placed.clone());
        Ok(placed)
    }

    fn transition(&self, id: u64, to: Status) -> Result<Order, ShopError> {
        let mut orders = self.orders.write().unwrap();
        let order = orders.get_mut(&id).ok_or(ShopError::NoSuchOrder(id))?;
        let allowed = matches!(
            (order.status, to),
            (Status::Open, Status::Paid | Status::Cancelled)
                | (Status::Paid, Status::Shipped | Status::Cancelled)
        ) || order.status == to;
        if !allowed {
            return Err(ShopError::BadTransition {
                id,
                from: order.status,
                to,
            });
        }
        order.status = to;
        Ok(order.clone())
    }

    /// A path under the documents root, or why not.
    fn document(&self, path: &str) -> anyhow::Result<PathBuf> {
        let relative = Path::new(path);
        if relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            bail!(
                "`{path}` is outside the shop's documents: give a path like `policies/returns.md`"
            );
        }
        Ok(self.root.join(relative))
    }

    /// Every order, for the application (not a tool).
    pub fn orders(&self) -> Vec<Order> {
        self.orders.read().unwrap().values().cloned().collect()
    }
}

#[toolset]
impl Shop {
    /// List orders, newest first; only those of one status when it is given.
    #[tool(read_only)]
    fn find_orders(
        &self,
        /// Only orders in this status.
        status: Option<Status>,
        /// How many at most, 1 to 50.
        #[tool(default = 10)]
        #[schemars(range(min = 1, max = 50))]
        limit: u32,
    ) -> Vec<OrderSummary> {
        self.orders
            .read()
            .unwrap()
            .values()
            .rev()
            .filter(|o| status.is_none_or(|s| o.status == s))
            .take(limit as usize)
            .map(|o| OrderSummary {
                id: o.id,
                customer: o.customer.name.clone(),
                status: o.status,
                total_cents: o.total_cents,
            })
            .collect()
    }

    /// Look an order up by its number.
    #[tool(read_only)]
    fn get_order(&self, id: u64) -> Result<Order, ShopError> {
        let orders = self.orders.read().unwrap();
        orders.get(&id).cloned().ok_or(ShopError::NoSuchOrder(id))
    }

    /// Find orders by number, or by words of the customer's name.
    #[tool(read_only)]
    fn search(&self, query: Query) -> Vec<u64> {
        let orders = self.orders.read().unwrap();
        match query {
            Query::Id(id) => orders.contains_key(&id).then_some(id).into_iter().collect(),
            Query::Words { words } => {
                let words = words.to_lowercase();
                orders
                    .values()
                    .filter(|o| {
                        let name = o.customer.name.to_lowercase();
                        words.split_whitespace().all(|w| name.contains(w))
                    })
                    .map(|o| o.id)
                    .collect()
            }
        }
    }

    /// Place an order; the stock is taken at once.
    #[tool]
    fn create_order(&self, order: NewOrder) -> Result<Order, ShopError> {
        self.place(order)
    }

    /// Move an order on: open -> paid -> shipped.
    #[tool(idempotent)]
    fn set_status(&self, id: u64, status: Status) -> Result<Order, ShopError> {
        self.transition(id, status)
    }

    /// Cancel an order that has not shipped. A person approves each cancellation.
    #[tool(destructive, needs_approval)]
    fn cancel_order(
        &self,
        id: u64,
        /// Why, in a sentence the customer will read.
        reason: String,
    ) -> Result<String, ShopError> {
        let order = self.transition(id, Status::Cancelled)?;
        Ok(format!(
            "order {} of {} cancelled: {reason}",
            order.id, order.customer.name
        ))
    }

    /// Add stock, in units per SKU; gives the new levels.
    #[tool]
    fn restock(
        &self,
        /// Units to add, by SKU.
        #[tool(rename = "quantities")]
        counts: BTreeMap<String, u32>,
    ) -> Result<BTreeMap<String, u32>, ShopError> {
        let mut stock = self.stock.write().unwrap();
        if let Some(unknown) = counts.keys().find(|sku| !stock.contains_key(*sku)) {
            return Err(ShopError::UnknownSku(unknown.clone()));
        }
        let mut levels = BTreeMap::new();
        for (sku, count) in counts {
            if let Some(entry) = stock.get_mut(&sku) {
                entry.0 += count;
                levels.insert(sku, entry.0);
            }
        }
        Ok(levels)
    }

    /// Euros in another currency today: how many units one euro buys.
    #[tool(read_only, timeout = "2s")]
    async fn exchange_rate(
        &self,
        /// An ISO 4217 code, like "USD".
        #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
        currency: String,
    ) -> Result<f64, ShopError> {
        // The rate service, stood in for: it answers after a moment.
        toolwright::exec::sleep(Duration::from_millis(5)).await;
        match currency.as_str() {
            "USD" => Ok(1.08),
            "GBP" => Ok(0.85),
            "JPY" => Ok(161.2),
            _ => Err(ShopError::NoRate(currency)),
        }
    }

    /// Read one of the shop's documents (policies, notes), by its path under the documents.
    #[tool(read_only)]
    fn read_document(
        &self,
        /// Like "policies/returns.md".
        path: String,
        #[tool(context)] session: &Session,
    ) -> anyhow::Result<String> {
        let file = self.document(&path)?;
        let text = fs::read_to_string(&file).with_context(|| format!("cannot read `{path}`"))?;
        Ok(format!("{text}\n(read for {})", session.user))
    }

    /// Write every order to a CSV file under the documents; gives the path and the line count.
    // Disk work that blocks: on a thread of its own, stopped waiting for after 5 s.
    #[tool(blocking, timeout = "5s")]
    fn export_orders(
        &self,
        /// Where, under the documents, like "exports/orders.csv".
        #[tool(rename = "file")]
        path: String,
    ) -> anyhow::Result<String> {
        let file = self.document(&path)?;
        if let Some(dir) = file.parent() {
            fs::create_dir_all(dir).context("cannot create the folder")?;
        }
        let mut csv = String::from("id,customer,status,total_cents\n");
        let orders = self.orders();
        for order in &orders {
            csv.push_str(&format!(
                "{},{},{:?},{}\n",
                order.id, order.customer.name, order.status, order.total_cents
            ));
        }
        fs::write(&file, csv).with_context(|| format!("cannot write `{path}`"))?;
        Ok(format!("{path}: {} orders", orders.len()))
    }

    /// The total of every order, in euro cents.
    #[tool(read_only)]
    #[deprecated(since = "0.3.0", note = "`find_orders` gives each order's total")]
    fn revenue(&self) -> u64 {
        self.orders
            .read()
            .unwrap()
            .values()
            .filter(|o| o.status != Status::Cancelled)
            .map(|o| o.total_cents)
            .sum()
    }
}

/// Say who is using the shop.
#[tool(read_only)]
pub fn whoami(#[tool(context)] session: &Session) -> String {
    session.user.clone()
}
