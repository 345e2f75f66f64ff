//! A task as the store keeps it, and its status.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a task is in its life (MCP's `TaskStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The body is running.
    Working,
    /// The task waits for answers to its [`input_requests`](TaskRecord::input_requests).
    InputRequired,
    /// The call ended with a result (an error result too: the tool's own failure is a result);
    /// [`result`](TaskRecord::result) holds it.
    Completed,
    /// The task could not give a result: [`error`](TaskRecord::error) says why (the process that
    /// ran it stopped, say).
    Failed,
    /// Cancelled before it ended.
    Cancelled,
}

impl TaskStatus {
    /// The status as MCP writes it: `working`, `input_required`, `completed`, `failed`,
    /// `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status written `text`, if it is one.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    /// Whether the task has ended (`completed`, `failed`, `cancelled`): nothing changes it
    /// after.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task as its store keeps it. Times are milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 128 random bits, in hex.
    pub id: String,
    /// Whom the task belongs to: only reads by the same owner find it.
    pub owner: String,
    /// The tool called.
    pub tool: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// What the tool last said it is doing (a progress report's message).
    pub message: Option<String>,
    /// The progress the tool last reported.
    pub progress: Option<f64>,
    /// The total the tool last reported.
    pub total: Option<f64>,
    /// When the task was created.
    pub created_ms: u64,
    /// When the task last changed.
    pub updated_ms: u64,
    /// How long the store keeps the task after its creation.
    pub ttl_ms: u64,
    /// Until when the process running the task holds it: renewed while the body runs. A task
    /// not ended by then is read as failed.
    pub lease_ms: u64,
    /// The process running the task, as [`Tasks::replica`](super::Tasks::replica) names it.
    pub replica: String,
    /// The result, once [`Completed`](TaskStatus::Completed): MCP's `CallToolResult` as JSON by
    /// default (`content`, `isError`, `structuredContent`).
    pub result: Option<Value>,
    /// Why the task failed, once [`Failed`](TaskStatus::Failed): a JSON-RPC error object
    /// (`code`, `message`).
    pub error: Option<Value>,
    /// The questions the task waits on, by key ([`InputRequired`](TaskStatus::InputRequired)):
    /// MCP input requests (`{"method": "elicitation/create", "params": {..}}`).
    pub input_requests: BTreeMap<String, Value>,
    /// The answers given so far to [`input_requests`](Self::input_requests), by key.
    pub input_responses: BTreeMap<String, Value>,
}

impl TaskRecord {
    /// A new working task.
    pub(crate) fn new(id: String, owner: String, tool: String, now: u64, ttl_ms: u64) -> Self {
        TaskRecord {
            id,
            owner,
            tool,
            status: TaskStatus::Working,
            message: None,
            progress: None,
            total: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms,
            lease_ms: now,
            replica: String::new(),
            result: None,
            error: None,
            input_requests: BTreeMap::new(),
            input_responses: BTreeMap::new(),
        }
    }

    /// Whether the store may forget the task at `now` (its time to live has passed).
    pub fn is_expired(&self, now: u64) -> bool {
        now >= self.created_ms.saturating_add(self.ttl_ms)
    }

    /// Whether the task's lease ran out before it ended, at `now`.
    pub fn lease_ran_out(&self, now: u64) -> bool {
        !self.status.is_terminal() && self.lease_ms < now
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` (milliseconds since the Unix epoch) as an ISO 8601 UTC time to the millisecond, as MCP
/// writes a task's `createdAt`.
///
/// ```
/// use toolwright::tasks::iso8601;
///
/// assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
/// assert_eq!(iso8601(1_796_601_600_123), "2026-12-07T00:00:00.123Z");
/// ```
pub fn iso8601(ms: u64) -> String {
    let (days, rest) = (ms / 86_400_000, ms % 86_400_000);
    let (hour, minute) = (rest / 3_600_000, rest / 60_000 % 60);
    let (second, milli) = (rest / 1000 % 60, rest % 1000);
    // Days to a civil date (Howard Hinnant's `civil_from_days`), for days since 1970 only.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_civil_dates() {
        for (ms, text) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (951_868_799_999, "2000-02-29T23:59:59.999Z"),
            (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
            (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
            (1_796_601_600_123, "2026-12-07T00:00:00.123Z"),
        ] {
            assert_eq!(iso8601(ms), text, "{ms}");
        }
    }

    #[test]
    fn statuses_read_back_as_written() {
        for status in [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ] {
            assert_eq!(TaskStatus::parse(status.as_str()), Some(status));
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                Value::String(status.as_str().into())
            );
        }
        assert_eq!(TaskStatus::parse("done"), None);
    }
}
