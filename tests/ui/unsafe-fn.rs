use toolwright::tool;

/// Read raw memory.
#[tool]
unsafe fn peek(address: usize) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
