//! What a server offers beside its tools, declared and changed on a running server, and the
//! clients told when it changes.

use std::sync::{Arc, PoisonError};

use rmcp::model::{ResourceUpdatedNotificationParam, ServerNotification};

use super::offer::{Offers, Prompt, Resource, ResourceTemplate};
use super::session::Session;
use rmcp::ServerHandler;

use super::{CacheHints, Change, Listener, McpServer};

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Offers `resource` too (builder style; [`add_resource`](Self::add_resource) on a running
    /// server). Declare at least one resource or template before serving for the server to
    /// announce the `resources` capability. A `#[resource]` fn's handle (`ReadmeResource` for
    /// `fn readme`) converts into a `Resource`.
    #[must_use]
    pub fn with_resource(self, resource: impl Into<Resource>) -> Self {
        let resource = resource.into();
        self.change_offers(|offers| offers.resources.push(resource));
        self
    }

    /// Offers the resources `template` matches too. A `#[resource]` fn whose URI has variables
    /// has a handle that converts into a `ResourceTemplate`.
    #[must_use]
    pub fn with_resource_template(self, template: impl Into<ResourceTemplate>) -> Self {
        let template = template.into();
        self.change_offers(|offers| offers.templates.push(template));
        self
    }

    /// Offers `prompt` too (builder style; [`add_prompt`](Self::add_prompt) on a running
    /// server). A `#[prompt]` fn's handle (`ReviewPrompt` for `fn review`) converts into a
    /// `Prompt`.
    #[must_use]
    pub fn with_prompt(self, prompt: impl Into<Prompt>) -> Self {
        let prompt = prompt.into();
        self.change_offers(|offers| offers.prompts.push(prompt));
        self
    }

    /// Serves what `handler` offers beside the tools: for each of resources, prompts,
    /// completion and logging that its `get_info` announces, its methods answer instead of the
    /// resources and prompts declared here (an application's own rmcp handler, for the parts it
    /// writes itself). Tools are always the toolbox's.
    #[must_use]
    pub fn with_handler(mut self, handler: impl ServerHandler) -> Self {
        self.handler = Some(Arc::new(handler));
        self
    }

    /// Cache hints for list and read results (protocol revision 2026-07-28). Without them rmcp
    /// sends the most careful ones: stale at once, private.
    #[must_use]
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache_hints = Some(hints);
        self
    }

    /// How many resources one session may subscribe to at once (256 by default): one more is
    /// refused with `-32602`, naming the limit.
    #[must_use]
    pub fn max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_subscriptions = subscriptions;
        self
    }

    /// Offers `resource` from now on (replacing one at the same URI) and sends
    /// `notifications/resources/list_changed` to every client that listens; returns how many
    /// were told.
    pub async fn add_resource(&self, resource: impl Into<Resource>) -> usize {
        let resource = resource.into();
        self.change_offers(|offers| {
            offers
                .resources
                .retain(|known| known.uri() != resource.uri());
            offers.resources.push(resource);
        });
        self.notify(&Change::Resources).await
    }

    /// Stops offering the resource at `uri` and tells the clients that listen; returns how
    /// many were told (none when there was no such resource).
    pub async fn remove_resource(&self, uri: &str) -> usize {
        let mut removed = false;
        self.change_offers(|offers| {
            let before = offers.resources.len();
            offers.resources.retain(|known| known.uri() != uri);
            removed = offers.resources.len() != before;
        });
        if removed {
            self.notify(&Change::Resources).await
        } else {
            0
        }
    }

    /// Offers `prompt` from now on (replacing one of the same name) and sends
    /// `notifications/prompts/list_changed` to every client that listens; returns how many were
    /// told.
    pub async fn add_prompt(&self, prompt: impl Into<Prompt>) -> usize {
        let prompt = prompt.into();
        self.change_offers(|offers| {
            offers.prompts.retain(|known| known.name() != prompt.name());
            offers.prompts.push(prompt);
        });
        self.notify(&Change::Prompts).await
    }

    /// Says the resource at `uri` changed: every client subscribed to it gets
    /// `notifications/resources/updated`. Returns how many were told.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        self.notify(&Change::Resource(uri.to_owned())).await
    }

    /// Tells every client that listens for `change`; forgets those whose connection closed.
    /// Returns how many were told.
    pub(super) async fn notify(&self, change: &Change) -> usize {
        let listeners = std::mem::take(
            &mut *self
                .shared
                .listeners
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut kept = Vec::with_capacity(listeners.len());
        let mut told = 0;
        for listener in listeners {
            let notification = match change {
                Change::Tools => ServerNotification::ToolListChangedNotification(
                    rmcp::model::ToolListChangedNotification::default(),
                ),
                Change::Prompts => ServerNotification::PromptListChangedNotification(
                    rmcp::model::PromptListChangedNotification::default(),
                ),
                Change::Resources => ServerNotification::ResourceListChangedNotification(
                    rmcp::model::ResourceListChangedNotification::default(),
                ),
                Change::Resource(uri) => ServerNotification::ResourceUpdatedNotification(
                    rmcp::model::ResourceUpdatedNotification::new(
                        ResourceUpdatedNotificationParam::new(uri.clone()),
                    ),
                ),
            };
            let keep = match &listener {
                Listener::Session(peer, session) => {
                    if peer.is_transport_closed() {
                        false
                    } else if matches!(change, Change::Resource(uri) if !session.subscribed(uri)) {
                        true
                    } else {
                        let sent = peer.send_notification(notification).await.is_ok();
                        told += usize::from(sent);
                        sent
                    }
                }
                Listener::Subscription(sink) => match sink.send(notification).await {
                    Ok(()) => {
                        told += 1;
                        true
                    }
                    // Not what this stream asked for: it stays for what it did.
                    Err(
                        rmcp::service::SubscriptionSendError::NotificationNotAccepted(_)
                        | rmcp::service::SubscriptionSendError::UnsupportedNotification(_),
                    ) => true,
                    Err(_) => false,
                },
            };
            if keep {
                kept.push(listener);
            }
        }
        self.shared
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(kept);
        told
    }

    pub(super) fn change_offers(&self, change: impl FnOnce(&mut Offers)) {
        let mut offers = self
            .shared
            .offers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        change(Arc::make_mut(&mut offers));
    }

    pub(super) fn offers(&self) -> Arc<Offers> {
        Arc::clone(
            &self
                .shared
                .offers
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The same server for a new connection: what the server offers shared, the connection's
    /// own state (log level, subscriptions, retry budget) fresh.
    pub(super) fn for_connection(&self) -> Self {
        McpServer {
            session: Arc::new(Session::new()),
            ..self.clone()
        }
    }
}
