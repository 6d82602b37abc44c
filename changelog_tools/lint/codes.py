"""The stable diagnostic codes of `lint` (CL7xx), one group of ten per rule."""

from __future__ import annotations

from changelog_tools.diagnostics import register

INPUT_UNREADABLE = register(
    "CL700", "lint-input", "A file a lint rule needs cannot be read or parsed."
)
# master-schema
MASTER_UNKNOWN_FIELD = register(
    "CL701", "master-unknown-field", "A master-config entry has a field the schema does not know."
)
MASTER_MISSING_FIELD = register(
    "CL702", "master-missing-field", "A master-config entry lacks a required field."
)
MASTER_WRONG_TYPE = register(
    "CL703", "master-wrong-type", "A master-config field has the wrong type."
)
MASTER_BAD_VALUE = register(
    "CL704", "master-bad-value", "A master-config field has a value outside its allowed set."
)
MASTER_CONSTRAINT = register(
    "CL705", "master-constraint", "A master-config entry breaks a rule across its fields."
)
# chat-template
CHAT_TEMPLATE_MISSING = register(
    "CL710",
    "chat-template-missing",
    "A speculative-decoding script calls the benchmark client without the chat-template flag.",
)
CHAT_TEMPLATE_CONDITIONAL = register(
    "CL711",
    "chat-template-conditional",
    "The chat-template flag is passed only under a condition (warning).",
)
SPEC_FLAGS_ELSEWHERE = register(
    "CL712",
    "spec-flags-elsewhere",
    "A script not named as speculative uses speculative-decoding flags (warning).",
)
# spec-launchers
SPEC_UNMAPPED_USED = register(
    "CL720",
    "spec-unmapped-used",
    "A `spec-decoding` value a config uses maps to no script suffix in a launcher.",
)
SPEC_UNMAPPED_LATENT = register(
    "CL721",
    "spec-unmapped-latent",
    "A `spec-decoding` value the schema accepts maps to no script suffix in a launcher "
    "(warning: no config uses it yet).",
)
# config-script
CONFIG_SCRIPT_MISSING = register(
    "CL730",
    "config-script-missing",
    "A single-node master-config entry resolves to no benchmark script.",
)
# engine-patches
ENGINE_PATCH = register("CL740", "engine-patch", "Added code patches the engine without a waiver.")
WAIVER_INCOMPLETE = register(
    "CL741", "waiver-incomplete", "A new waiver lacks one of the required headings."
)
# arch-overrides
ARCH_OVERRIDE = register(
    "CL750",
    "arch-override",
    "Added code overrides the model's architecture or FLOPs (--hf-overrides and the like).",
)
# images
NON_UPSTREAM_IMAGE = register(
    "CL760",
    "non-upstream-image",
    "A vLLM or SGLang entry on an established SKU does not use the upstream image.",
)
# engine-first
ENGINE_FIRST = register(
    "CL770",
    "engine-first",
    "An entry of another framework has no vLLM or SGLang entry for its model and SKU.",
)
# models
RETIRED_MODEL = register("CL780", "retired-model", "An entry benchmarks a model MODELS.md retired.")
DEPRECATED_SCENARIO = register(
    "CL781",
    "deprecated-scenario",
    "An entry runs a scenario, precision or arm MODELS.md deprecated.",
)
# golden-al
GOLDEN_AL_MISMATCH = register(
    "CL790",
    "golden-al-mismatch",
    "An agentic spec-decoding script pins an acceptance length not in the golden distribution.",
)
GOLDEN_AL_UNPINNED = register(
    "CL791",
    "golden-al-unpinned",
    "An agentic spec-decoding script does not pin the simulated acceptance length.",
)
SYNTHETIC_OUTSIDE_AGENTIC = register(
    "CL792",
    "synthetic-outside-agentic",
    "A synthetic-acceptance knob is set outside the agentic scripts.",
)
GOLDEN_AL_NO_FILE = register(
    "CL793",
    "golden-al-no-file",
    "An agentic spec-decoding script pins an acceptance length for a model with no golden file.",
)
