use toolwright::tool;

/// Do it.
#[tool(name = "a_tool_name_that_goes_on_and_on_well_past_the_sixty_four_characters_providers_take")]
fn long_name() -> u32 {
    1
}

fn main() {}
