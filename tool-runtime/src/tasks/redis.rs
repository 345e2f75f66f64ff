//! Tasks in Redis, for several processes (replicas) sharing them.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use redis::aio::ConnectionManager;
use serde_json::Value;

use super::record::{TaskRecord, TaskStatus, now_ms};
use super::store::{StoreError, StoreFuture, TaskStore, TaskUpdate, Updated};

/// Tasks in Redis: one hash per task (`toolwright:task:ID`), which Redis forgets when the
/// task's time to live has passed. Every update is one Lua script, applied atomically by the
/// rules of [`TaskUpdate::apply`] (the tests check the two agree), so replicas that share the
/// server never give a result twice. The connection is re-made when it breaks: while Redis is
/// down, operations fail with a [`StoreError`], and work again once it is back.
///
/// With Redis's persistence on (`appendonly yes`), tasks outlive a restart of Redis too.
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    script: redis::Script,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn failed(error: &redis::RedisError) -> StoreError {
    StoreError(format!("Redis: {error}"))
}

/// The update script: `KEYS[1]` the task's hash; `ARGV[1]` the update, `ARGV[2]` now (ms), the
/// rest the update's values. Returns false for no task, else `{applied, HGETALL}`.
const UPDATE: &str = r"
local key, op, now = KEYS[1], ARGV[1], ARGV[2]
if redis.call('EXISTS', key) == 0 then return false end
local status = redis.call('HGET', key, 'status')
local live = status == 'working' or status == 'input_required'
local applied = 0
if op == 'report' then
  if live then
    for i = 3, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
    applied = 1
  end
elseif op == 'renew' then
  if live then
    redis.call('HSET', key, 'lease', ARGV[3], 'replica', ARGV[4])
    return {1, redis.call('HGETALL', key)}
  end
elseif op == 'ask' then
  if live then
    redis.call('HSET', key, 'status', 'input_required')
    for i = 3, #ARGV, 2 do redis.call('HSET', key, 'q:' .. ARGV[i], ARGV[i + 1]) end
    applied = 1
  end
elseif op == 'respond' then
  if status == 'input_required' then
    applied = 1
    for i = 3, #ARGV, 2 do
      if redis.call('HEXISTS', key, 'q:' .. ARGV[i]) == 0
        or redis.call('HEXISTS', key, 'r:' .. ARGV[i]) == 1 then
        applied = 0
      end
    end
    if applied == 1 then
      for i = 3, #ARGV, 2 do redis.call('HSET', key, 'r:' .. ARGV[i], ARGV[i + 1]) end
    end
  end
elseif op == 'resume' then
  if status == 'input_required' then
    for i = 3, #ARGV do redis.call('HDEL', key, 'q:' .. ARGV[i], 'r:' .. ARGV[i]) end
    local open = false
    for _, field in ipairs(redis.call('HKEYS', key)) do
      if string.sub(field, 1, 2) == 'q:' then open = true end
    end
    if not open then redis.call('HSET', key, 'status', 'working') end
    applied = 1
  end
elseif op == 'finish' then
  if live then
    redis.call('HSET', key, 'status', ARGV[3])
    for i = 4, #ARGV, 2 do redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
    applied = 1
  end
elseif op == 'cancel' then
  if live then
    redis.call('HSET', key, 'status', 'cancelled')
    applied = 1
  end
elseif op == 'expire' then
  if live and tonumber(redis.call('HGET', key, 'lease')) < tonumber(now) then
    redis.call('HSET', key, 'status', 'failed', 'error', ARGV[3])
    applied = 1
  end
end
if applied == 1 then redis.call('HSET', key, 'updated', now) end
return {applied, redis.call('HGETALL', key)}
";

impl RedisStore {
    /// Connects to the Redis server at `url` (`redis://HOST:PORT`, `redis://:PASSWORD@HOST/DB`,
    /// `rediss://` for TLS where the `redis` crate's TLS is on).
    ///
    /// # Errors
    /// The URL is not one, or the server cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        use redis::IntoConnectionInfo as _;
        // Without Nagle's delay: requests of many tasks share the connection, and a small
        // write held back for the last one's acknowledgement costs every task milliseconds.
        let info = url
            .into_connection_info()
            .map_err(|error| failed(&error))?
            .set_tcp_settings(redis::io::tcp::TcpSettings::default().set_nodelay(true));
        let client = redis::Client::open(info).map_err(|error| failed(&error))?;
        let connection = ConnectionManager::new(client)
            .await
            .map_err(|error| failed(&error))?;
        Ok(RedisStore {
            connection,
            prefix: "toolwright:task:".to_owned(),
            script: redis::Script::new(UPDATE),
        })
    }

    /// Keys tasks under `prefix` instead of `toolwright:task:` (for several applications on one
    /// server).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }
}

/// A JSON value as a hash field's text.
fn text(value: &Value) -> String {
    value.to_string()
}

/// The record written as a hash's fields.
fn fields(record: &TaskRecord) -> Vec<(String, String)> {
    let mut fields = vec![
        ("id".to_owned(), record.id.clone()),
        ("owner".to_owned(), record.owner.clone()),
        ("tool".to_owned(), record.tool.clone()),
        ("status".to_owned(), record.status.as_str().to_owned()),
        ("created".to_owned(), record.created_ms.to_string()),
        ("updated".to_owned(), record.updated_ms.to_string()),
        ("ttl".to_owned(), record.ttl_ms.to_string()),
        ("lease".to_owned(), record.lease_ms.to_string()),
        ("replica".to_owned(), record.replica.clone()),
    ];
    let optional = [
        ("message", record.message.clone()),
        ("progress", record.progress.map(|n| n.to_string())),
        ("total", record.total.map(|n| n.to_string())),
        ("result", record.result.as_ref().map(text)),
        ("error", record.error.as_ref().map(text)),
    ];
    fields.extend(
        optional
            .into_iter()
            .filter_map(|(name, value)| Some((name.to_owned(), value?))),
    );
    for (prefix, map) in [
        ("q:", &record.input_requests),
        ("r:", &record.input_responses),
    ] {
        fields.extend(
            map.iter()
                .map(|(key, value)| (format!("{prefix}{key}"), text(value))),
        );
    }
    fields
}

/// The record a hash's fields hold.
fn record(mut fields: HashMap<String, String>) -> Result<TaskRecord, StoreError> {
    let id = fields.remove("id").unwrap_or_default();
    let broken = |what: &str| StoreError(format!("task {id} in Redis has no readable {what}"));
    let mut take = |name: &str| fields.remove(name);
    let number = |value: Option<String>, name: &str| {
        value
            .and_then(|value| value.parse::<u64>().ok())
            .ok_or_else(|| broken(name))
    };
    let json = |value: Option<String>, name: &str| {
        value
            .map(|value| serde_json::from_str::<Value>(&value).map_err(|_| broken(name)))
            .transpose()
    };
    let float = |value: Option<String>| value.and_then(|value| value.parse::<f64>().ok());
    let status = take("status")
        .as_deref()
        .and_then(TaskStatus::parse)
        .ok_or_else(|| broken("status"))?;
    let mut record = TaskRecord {
        owner: take("owner").unwrap_or_default(),
        tool: take("tool").unwrap_or_default(),
        status,
        message: take("message"),
        progress: float(take("progress")),
        total: float(take("total")),
        created_ms: number(take("created"), "creation time")?,
        updated_ms: number(take("updated"), "update time")?,
        ttl_ms: number(take("ttl"), "time to live")?,
        lease_ms: number(take("lease"), "lease")?,
        replica: take("replica").unwrap_or_default(),
        result: json(take("result"), "result")?,
        error: json(take("error"), "error")?,
        input_requests: BTreeMap::new(),
        input_responses: BTreeMap::new(),
        id: String::new(),
    };
    for (field, value) in fields {
        let (map, key) = if let Some(key) = field.strip_prefix("q:") {
            (&mut record.input_requests, key)
        } else if let Some(key) = field.strip_prefix("r:") {
            (&mut record.input_responses, key)
        } else {
            continue;
        };
        let value = serde_json::from_str(&value).map_err(|_| broken("input"))?;
        map.insert(key.to_owned(), value);
    }
    record.id = id;
    Ok(record)
}

/// The script's arguments for `update`.
fn arguments(update: &TaskUpdate) -> Vec<String> {
    let mut args = Vec::new();
    let pair = |args: &mut Vec<String>, name: &str, value: String| {
        args.push(name.to_owned());
        args.push(value);
    };
    let op = match update {
        TaskUpdate::Report {
            message,
            progress,
            total,
        } => {
            if let Some(message) = message {
                pair(&mut args, "message", message.clone());
            }
            if let Some(progress) = progress {
                pair(&mut args, "progress", progress.to_string());
            }
            if let Some(total) = total {
                pair(&mut args, "total", total.to_string());
            }
            "report"
        }
        TaskUpdate::Renew { lease_ms, replica } => {
            args.push(lease_ms.to_string());
            args.push(replica.clone());
            "renew"
        }
        TaskUpdate::Ask { requests } => {
            for (key, value) in requests {
                pair(&mut args, key, text(value));
            }
            "ask"
        }
        TaskUpdate::Respond { responses } => {
            for (key, value) in responses {
                pair(&mut args, key, text(value));
            }
            "respond"
        }
        TaskUpdate::Resume { keys } => {
            args.extend(keys.iter().cloned());
            "resume"
        }
        TaskUpdate::Finish {
            status,
            result,
            error,
        } => {
            args.push(status.as_str().to_owned());
            if let Some(result) = result {
                pair(&mut args, "result", text(result));
            }
            if let Some(error) = error {
                pair(&mut args, "error", text(error));
            }
            "finish"
        }
        TaskUpdate::Cancel => "cancel",
        TaskUpdate::Expire { error } => {
            args.push(text(error));
            "expire"
        }
    };
    let mut all = vec![op.to_owned(), now_ms().to_string()];
    all.extend(args);
    all
}

impl TaskStore for RedisStore {
    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let key = self.key(&record.id);
            // Ids are 128 random bits: a new task's key is free.
            let expires = record.created_ms.saturating_add(record.ttl_ms);
            let () = redis::pipe()
                .atomic()
                .hset_multiple(&key, &fields(record))
                .ignore()
                .pexpire_at(&key, i64::try_from(expires).unwrap_or(i64::MAX))
                .ignore()
                .query_async(&mut connection)
                .await
                .map_err(|error| failed(&error))?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let fields: HashMap<String, String> = redis::cmd("HGETALL")
                .arg(self.key(id))
                .query_async(&mut connection)
                .await
                .map_err(|error| failed(&error))?;
            if fields.is_empty() {
                return Ok(None);
            }
            record(fields).map(Some)
        })
    }

    fn update<'a>(&'a self, id: &'a str, update: TaskUpdate) -> StoreFuture<'a, Option<Updated>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let mut invocation = self.script.key(self.key(id));
            for arg in arguments(&update) {
                invocation.arg(arg);
            }
            let answer: Option<(i64, HashMap<String, String>)> = invocation
                .invoke_async(&mut connection)
                .await
                .map_err(|error| failed(&error))?;
            let Some((applied, fields)) = answer else {
                return Ok(None);
            };
            Ok(Some(Updated {
                applied: applied == 1,
                record: record(fields)?,
            }))
        })
    }
}
