//! [`Keywords`]: what one form does with JSON Schema's keywords and formats.

/// What one form does with JSON Schema's keywords and formats, stated once as data in the
/// provider's folder: its pass reads it, the lints the pass gives name what it says, and a test
/// holds every form's pass to its table.
#[derive(Debug)]
pub(crate) struct Keywords {
    /// The keywords the form takes; any other is left out (annotations silently, rules with a
    /// warning). `None`: every keyword the lists below do not name is taken.
    pub(crate) taken: Option<&'static [&'static str]>,
    /// Bounds the form does not take, said in the description instead.
    pub(crate) described: &'static [&'static str],
    /// Rules the form does not take and that have no words: left out, with a warning.
    pub(crate) dropped: &'static [&'static str],
    /// The formats it takes (`None`: any); another is left out, with a note.
    pub(crate) formats: Option<&'static [&'static str]>,
}

impl Keywords {
    /// A form that takes JSON Schema as it is.
    pub(crate) const ALL: Keywords = Keywords {
        taken: None,
        described: &[],
        dropped: &[],
        formats: None,
    };
}
