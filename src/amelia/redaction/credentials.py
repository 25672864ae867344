"""The shapes of well-known credentials, one list for everything amelia posts, logs or
saves: the `Redactor` masks them in comments, reviews, summaries and logs, and the git layer
flags them in a push and masks them in what it saves for an upload step.

Each shape has needles, strings every match contains, so that a text without any of them
is passed over without running the pattern (`in` finds a needle in a fraction of the time
a pattern that starts with `\\b` takes). A shape whose only needle is common (the "." of a
Discord token) also has gates: patterns that start with a literal, one of which matches
wherever the shape's pattern does; the regex engine finds those about as fast as `in`, so
an ordinary text with dots is passed over too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

__all__ = [
    "CREDENTIAL_SHAPES",
    "NEEDLE_BYTES",
    "PRIVATE_KEY_BLOCK",
    "CredentialShape",
    "absent_needle_bytes",
]


@dataclass(frozen=True)
class CredentialShape:
    """One kind of credential: its name, its pattern for text and for bytes (the same
    ASCII pattern), and the needles every match contains."""

    kind: str
    text: re.Pattern[str]
    data: re.Pattern[bytes]
    needles: tuple[str, ...]
    gates: tuple[re.Pattern[str], ...] = field(default=(), kw_only=True)
    """None, or patterns one of which matches every text `text` matches."""
    data_gates: tuple[re.Pattern[bytes], ...] = field(default=(), kw_only=True)
    """`gates` for bytes."""

    def may_be_in(self, data: bytes, *, absent: frozenset[int] = frozenset()) -> bool:
        """Whether `data` holds one of the needles and opens a gate: if not, `data`
        cannot match. `absent`: bytes known not to be in `data` (`absent_needle_bytes`),
        so that a needle holding one is passed over without a search."""
        if not any(needle in data for needle, held in self._needle_bytes if not (held & absent)):
            return False
        return not self.data_gates or any(gate.search(data) for gate in self.data_gates)

    @cached_property
    def _needle_bytes(self) -> tuple[tuple[bytes, frozenset[int]], ...]:
        return tuple(
            (needle.encode("ascii"), frozenset(needle.encode("ascii"))) for needle in self.needles
        )


def _shape(
    kind: str, pattern: str, needles: tuple[str, ...], gates: tuple[str, ...] = ()
) -> CredentialShape:
    return CredentialShape(
        kind,
        re.compile(pattern, re.ASCII),
        re.compile(pattern.encode("ascii")),
        needles,
        gates=tuple(re.compile(gate, re.ASCII) for gate in gates),
        data_gates=tuple(re.compile(gate.encode("ascii")) for gate in gates),
    )


CREDENTIAL_SHAPES: tuple[CredentialShape, ...] = (
    # GitHub
    _shape(
        "GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
    ),
    _shape("GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{60,}", ("github_pat_",)),
    _shape(
        "GitHub secret scanning sample token",
        r"\bsecret_scanning_ab85fc6f8d7638cf1c11da812da308d43_[0-9A-Za-z]{5}\b",
        ("secret_scanning_",),
    ),
    # Model providers
    _shape("Anthropic API key", r"\bsk-ant-[a-z0-9]+-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    _shape(
        "OpenAI API key",
        r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
        r"|[A-Za-z0-9_-]{0,120}T3BlbkFJ[A-Za-z0-9_-]{10,})",
        ("sk-",),
    ),
    _shape("OpenRouter API key", r"\bsk-or-v1-[a-f0-9]{40,}", ("sk-or-v1-",)),
    _shape("Groq API key", r"\bgsk_[A-Za-z0-9]{52}\b", ("gsk_",)),
    _shape("xAI API key", r"\bxai-[A-Za-z0-9]{80}\b", ("xai-",)),
    _shape("Replicate API token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    _shape("Hugging Face token", r"\b(?:hf|api_org)_[A-Za-z]{34}\b", ("hf_", "api_org_")),
    # Clouds
    _shape("AWS access key id", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", ("AKIA", "ASIA")),
    _shape("Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b", ("AIza",)),
    _shape("Google OAuth client secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b", ("GOCSPX-",)),
    _shape(
        "Google OAuth token",
        r"\bya29\.[0-9A-Za-z_-]{30,}|\b1//0[0-9A-Za-z_-]{40,}",
        ("ya29.", "1//0"),
    ),
    _shape(
        "Azure storage or service key in a connection string",
        r"\bAccountKey=[A-Za-z0-9+/]{86}==|\bSharedAccessKey=[A-Za-z0-9+/]{42,43}=",
        ("AccountKey=", "SharedAccessKey="),
    ),
    _shape(
        # Microsoft's identifiable keys: a fixed signature at a fixed place in the key.
        "Azure identifiable key",
        r"(?<![A-Za-z0-9+/_-])(?:"
        r"[A-Za-z0-9+/]{76}(?:\+ASt|ACDb|\+ABa|\+AMC|APIM)[A-Za-z0-9+/]{5}[AQgw]=="
        r"|[A-Za-z0-9+/]{33}(?:\+ASb|\+AEh|\+ARm|AIoT|AzCa|AZEG)[A-P][A-Za-z0-9+/]{5}="
        r"|[A-Za-z0-9+/]{42}\+ACR[A-D][A-Za-z0-9+/]{5}"
        r"|[A-Za-z0-9_-]{44}AzFu[A-Za-z0-9_-]{5}[AQgw]=="
        r"|[A-Za-z0-9]{42}AzSe[A-D][A-Za-z0-9]{5}"
        r"|[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9][A-L][A-Za-z0-9]{16}[A-Za-z][A-Za-z0-9]{7}"
        r")(?![A-Za-z0-9+/=_-])",
        (
            "+ASt",
            "ACDb",
            "+ABa",
            "+AMC",
            "APIM",
            "+ASb",
            "+AEh",
            "+ARm",
            "AIoT",
            "AzCa",
            "AZEG",
            "+ACR",
            "AzFu",
            "AzSe",
            "JQQJ9",
        ),
    ),
    _shape(
        "Azure Entra ID client secret",
        r"(?<![A-Za-z0-9_~.+/-])[A-Za-z0-9_~.-]{3}[78]Q~[A-Za-z0-9_~.-]{31,34}"
        r"(?![A-Za-z0-9_~.+/=-])",
        ("7Q~", "8Q~"),
    ),
    _shape("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("doo_v1_", "dop_v1_", "dor_v1_")),
    _shape("Databricks token", r"\bdapi[0-9a-f]{32}(?:-\d)?\b", ("dapi",)),
    _shape("HashiCorp Vault token", r"\bhv[sb]\.[A-Za-z0-9_-]{90,}", ("hvs.", "hvb.")),
    _shape(
        "Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", (".atlasv1.",)
    ),
    _shape("Pulumi access token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    _shape("Doppler token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}", ("dp.",)),
    # Code hosting, CI and package registries
    _shape(
        "GitLab token",
        r"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|ffct|wt)-[0-9A-Za-z_.-]{20,}"
        r"|\bGR1348941[0-9A-Za-z_-]{20,}",
        (
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glcbt-",
            "gloas-",
            "glsoat-",
            "glft-",
            "glimt-",
            "glagent-",
            "glffct-",
            "glwt-",
            "GR1348941",
        ),
    ),
    _shape("Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{150,}", ("ATATT3",)),
    _shape(
        "Docker access token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}", ("dckr_pat_", "dckr_oat_")
    ),
    _shape("npm token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    _shape("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", ("pypi-AgEIcHlwaS5vcmc",)),
    _shape("RubyGems API key", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    _shape(
        "NuGet API key",
        r"\boy2[a-p][0-9a-z]{15}[aq][0-9a-z]{11}[eu][bdfhjlnprtvxz357][a-p][0-9a-z]{11}"
        r"[aeimquy4]\b",
        ("oy2",),
    ),
    _shape("crates.io token", r"\bcio[A-Za-z0-9]{32}\b", ("cio",)),
    _shape("Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",)),
    _shape(
        "Grafana token",
        r"\bglc_[A-Za-z0-9+/]{32,}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b",
        ("glc_", "glsa_"),
    ),
    _shape("Sentry token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}", ("sntrys_", "sntryu_")),
    _shape("Linear API key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b", ("lin_api_", "lin_oauth_")),
    _shape("Figma token", r"\bfigd_[A-Za-z0-9_-]{40,}", ("figd_",)),
    _shape("Notion token", r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b", ("ntn_",)),
    # Payments, messaging, mail
    _shape(
        "Stripe API key",
        r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ),
    _shape("Stripe webhook secret", r"\bwhsec_[A-Za-z0-9+/=]{32,}", ("whsec_",)),
    _shape(
        "Shopify token",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    _shape(
        "Slack token",
        r"\bxox(?:[abposr]|e(?:\.xox[bp])?)-[0-9A-Za-z-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]+",
        ("xox", "xapp-"),
    ),
    _shape(
        "Slack webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
        ("https://hooks.slack.com/",),
    ),
    _shape(
        "Discord token or webhook",
        r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b"
        r"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,}",
        (".",),
        (r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}", "discord"),
    ),
    _shape("Twilio account or API key id", r"\b(?:AC|SK)[0-9a-f]{32}\b", ("AC", "SK")),
    _shape("SendGrid API key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b", ("SG.",)),
    _shape(
        "Brevo (Sendinblue) key",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        ("xkeysib-", "xsmtpsib-"),
    ),
    _shape("Mailgun API key", r"\bkey-[0-9a-f]{32}\b", ("key-",)),
    _shape("Mailchimp API key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", ("-us",)),
    # Keys
    _shape("private key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----", ("-----BEGIN ",)),
    _shape("PuTTY private key", r"PuTTY-User-Key-File-\d+: ", ("PuTTY-User-Key-File-",)),
)
"""Credential formats with a recognisable shape, by name: those GitHub's push protection
blocks (its "supported secret scanning patterns") whose shape is reliable enough to match
without the provider's checksum, and a few more that are credentials as plainly (Stripe
restricted keys, Slack and Discord webhooks). Generic shapes (a password in a database
URL, any 88-character base64 string) are left out: ordinary code is full of them."""

PRIVATE_KEY_BLOCK = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)"
)
"""A private key from its first line to its last (or to the end of a text cut off before
it), as masked; compile it with `re.DOTALL`."""


NEEDLE_BYTES = frozenset(
    byte for shape in CREDENTIAL_SHAPES for n in shape.needles for byte in n.encode()
)
"""Every byte some shape's needle holds."""
_PRESENCE_FROM = 1 << 20


def absent_needle_bytes(data: bytes) -> frozenset[int]:
    """The bytes of `NEEDLE_BYTES` that `data` does not hold, for `CredentialShape.may_be_in`.

    Each needle is an `in` search over the whole of `data` when it is not there: ~50 ms per
    needle over 100 MiB, ~5 s for all of them. Whether a single byte is there is a far
    faster search (`memchr`), ~60 ms for all the needles' bytes over 100 MiB of zeros, and
    every needle holding a byte that is not there is passed over: a large file made of few
    distinct bytes (zeros, a CSV of numbers, much source code) is searched in well under a
    second. Below 1 MiB nothing is computed (empty: every needle is searched)."""
    if len(data) < _PRESENCE_FROM:
        return frozenset()
    return frozenset(byte for byte in NEEDLE_BYTES if byte not in data)
