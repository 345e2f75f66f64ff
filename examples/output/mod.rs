//! How the examples write their output, as command-line tools do: a reader that has gone away
//! (`cargo run --example providers -- openai | head`) ends the example quietly and with success,
//! rather than with a panic (`println!`) or an error message (`main` returning the write's
//! error).

// Each example takes what it needs of this module.
#![allow(dead_code, unused_imports, unused_macros)]

use std::fmt;
use std::io::{self, Write};
use std::process::{self, ExitCode};

/// Writes one line to standard output: `println!`, but a closed pipe ends the program quietly.
pub fn line(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(error) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        failed(&error);
    }
}

/// Ends the program after a failed write: quietly, with success, when the reader went away;
/// with the error otherwise.
pub fn failed(error: &io::Error) -> ! {
    if error.kind() == io::ErrorKind::BrokenPipe {
        process::exit(0);
    }
    eprintln!("could not write the output: {error}");
    process::exit(1)
}

/// The exit code of an example whose work ended in `result`: a closed pipe is success.
pub fn finish(result: io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// `println!` through [`line`].
macro_rules! say {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}

pub(crate) use say;
