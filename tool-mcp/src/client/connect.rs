//! Connecting: which protocol revisions the client offers, the lifecycle that offers them, and the
//! check of the revision the server chose.

use std::sync::PoisonError;

use rmcp::model::ProtocolVersion;
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService,
};
use rmcp::transport::IntoTransport;

use super::McpClient;

/// Why [`McpClient::connect`] could not start a session with an MCP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpConnectError {
    /// The handshake failed: the transport broke, the server refused, or no revision the client
    /// offered is one the server speaks.
    #[error("could not start a session with the MCP server: {0}")]
    Handshake(#[from] Box<ClientInitializeError>),
    /// The server chose a protocol revision the client did not offer (the specification's answer:
    /// the client disconnects). The session was closed.
    #[error(
        "the MCP server answered with protocol revision {answered}, which this client does not speak \
         (it offered {})",
        list(.offered)
    )]
    Version {
        /// The revision the server chose.
        answered: ProtocolVersion,
        /// The revisions the client speaks, newest first.
        offered: Vec<ProtocolVersion>,
    },
    /// No authorization can be made for the server's URL (`McpClient::connect_http`); an
    /// authorization that failed on the way ends the handshake
    /// ([`Handshake`](Self::Handshake)).
    #[cfg(feature = "oauth")]
    #[error("the MCP server's authorization could not start: {0}")]
    Authorization(Box<rmcp::transport::auth::AuthError>),
}

fn list(versions: &[ProtocolVersion]) -> String {
    versions
        .iter()
        .map(ProtocolVersion::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The revisions rmcp knows, newest first: what a client offers unless told otherwise.
pub(super) fn every_known() -> Vec<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .rev()
        .cloned()
        .collect()
}

/// The newest of `versions` (newest first) that has `initialize`: what `initialize` offers.
pub(super) fn with_initialize(versions: &[ProtocolVersion]) -> Option<&ProtocolVersion> {
    versions.iter().find(|version| version.has_initialize())
}

/// How the client starts its session with the revisions it speaks (newest first): through
/// `server/discover` when it speaks a revision without `initialize` (2026-07-28 on), falling back
/// to `initialize` with the newest revision that has it when the server is older; through
/// `initialize` alone otherwise.
pub(super) fn lifecycle(versions: &[ProtocolVersion]) -> ClientLifecycleMode {
    let modern: Vec<ProtocolVersion> = versions
        .iter()
        .filter(|version| !version.has_initialize())
        .cloned()
        .collect();
    match (modern.is_empty(), with_initialize(versions)) {
        (true, _) => ClientLifecycleMode::Initialize,
        (false, None) => ClientLifecycleMode::Discover {
            preferred_versions: modern,
        },
        (false, Some(legacy)) => ClientLifecycleMode::Auto {
            preferred_versions: modern,
            legacy_version: Some(legacy.clone()),
        },
    }
}

impl McpClient {
    /// Starts a session with the MCP server at the other end of `transport`, offering the protocol
    /// revisions this client speaks ([`with_protocol_versions`](Self::with_protocol_versions);
    /// every revision rmcp knows by default) and agreeing on the newest both sides speak: a
    /// server of revision 2026-07-28 or later is asked with `server/discover`, an older one with
    /// `initialize`, which the client falls back to when `server/discover` is not understood.
    /// A server that answers with a revision the client did not offer is refused and the session
    /// closed, as the specification says. The revision agreed is
    /// [`protocol_version`](Self::protocol_version) afterwards (and the running service's
    /// `peer().peer_info()`).
    ///
    /// rmcp does not fall back from `server/discover` to `initialize` when a server that knows
    /// `server/discover` answers that it speaks none of the client's newer revisions: such a
    /// server is a [`McpConnectError::Handshake`] error, and a client that offers only the older
    /// revisions ([`with_protocol_versions`](Self::with_protocol_versions)) reaches it.
    ///
    /// # Errors
    ///
    /// [`McpConnectError::Handshake`] when the session could not start (the transport, the
    /// server's refusal, no revision in common, none offered), [`McpConnectError::Version`] when
    /// the server chose a revision the client did not offer.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolwright::mcp::McpClient;
    /// use toolwright::mcp::rmcp::model::ProtocolVersion;
    /// use toolwright::mcp::rmcp::transport::StreamableHttpClientTransport;
    ///
    /// let client = McpClient::new().with_protocol_versions([ProtocolVersion::V_2025_11_25]);
    /// let transport = StreamableHttpClientTransport::from_uri("http://127.0.0.1:8000/mcp");
    /// let running = client.clone().connect(transport).await?;
    /// assert_eq!(client.protocol_version(), Some(ProtocolVersion::V_2025_11_25));
    /// # drop(running);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect<T, E, A>(
        self,
        transport: T,
    ) -> Result<RunningService<RoleClient, Self>, McpConnectError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let offered = self.protocol_versions().to_vec();
        if offered.is_empty() {
            return Err(Box::new(ClientInitializeError::NoPreferredProtocolVersion).into());
        }
        let agreed = self.agreed.clone();
        let running = self
            .serve_with_lifecycle(transport, lifecycle(&offered))
            .await
            .map_err(Box::new)?;
        let answered = running
            .peer()
            .peer_info()
            .map(|info| info.protocol_version.clone());
        match answered {
            Some(answered) if offered.contains(&answered) => {
                *agreed.lock().unwrap_or_else(PoisonError::into_inner) = Some(answered);
                Ok(running)
            }
            answered => {
                let _ = running.cancel().await;
                Err(McpConnectError::Version {
                    answered: answered.unwrap_or_default(),
                    offered,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_of_every_revision_discovers_and_falls_back_to_the_newest_with_initialize() {
        let ClientLifecycleMode::Auto {
            preferred_versions,
            legacy_version,
        } = lifecycle(&every_known())
        else {
            panic!("every revision: discover, then initialize")
        };
        assert_eq!(preferred_versions, [ProtocolVersion::V_2026_07_28]);
        assert_eq!(legacy_version, Some(ProtocolVersion::V_2025_11_25));
    }

    #[test]
    fn older_revisions_alone_use_initialize_and_newer_ones_alone_discover() {
        assert_eq!(
            lifecycle(&[ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18]),
            ClientLifecycleMode::Initialize
        );
        assert_eq!(
            lifecycle(&[ProtocolVersion::V_2026_07_28]),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28]
            }
        );
    }

    #[test]
    fn the_refusal_names_both_sides() {
        let error = McpConnectError::Version {
            answered: ProtocolVersion::V_2025_03_26,
            offered: vec![ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18],
        };
        assert_eq!(
            error.to_string(),
            "the MCP server answered with protocol revision 2025-03-26, which this client does not \
             speak (it offered 2025-11-25, 2025-06-18)"
        );
    }
}
