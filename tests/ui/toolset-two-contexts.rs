use toolwright::toolset;

struct App;
struct Session;
struct Service;

#[toolset]
impl Service {
    /// Who is asking.
    #[tool]
    fn user(&self, #[tool(context)] app: &App) -> String {
        let _ = app;
        String::new()
    }

    /// Which session this is.
    #[tool]
    fn session(&self, #[tool(context)] session: &Session) -> String {
        let _ = session;
        String::new()
    }
}

fn main() {}
