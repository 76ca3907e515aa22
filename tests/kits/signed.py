"""Signed mail built as clients send it (issue 33, item 2), with invented keys and
signatures: nothing in pbp verifies them.

- :func:`clear_signed`: an inline PGP clear-signed text (RFC 4880 §7), as GnuPG's
  ``--clearsign`` writes it: armour header line, ``Hash:``, a blank line, the text
  dash-escaped (§7.1), an armoured signature of invented bytes;
- :func:`signed_data`: a CMS ``ContentInfo`` of ``SignedData`` (RFC 5652 §5) holding a
  MIME entity, built with ``asn1crypto``: DER with one primitive ``eContent``, or BER
  as OpenSSL's ``-stream`` and Outlook write it (indefinite lengths, the ``eContent`` a
  constructed OCTET STRING of pieces); one invented signer, no certificate;
- :func:`enveloped_data`: a CMS ``EnvelopedData`` (encrypted; the bytes invented);
- :func:`smime`: the content headers and the base64 body of an opaque S/MIME part
  (RFC 8551 §3.5.2).
"""

from __future__ import annotations

import base64
import hashlib

from asn1crypto import algos, cms, core, x509

#: An invented OpenPGP signature packet (not a valid signature: nothing checks it).
_PGP_SIGNATURE = base64.b64encode(hashlib.sha512(b"pbp").digest() * 5).decode()


def clear_signed(text: str, *, escape_all: bool = False) -> str:
    """``text`` (``\\n`` lines) clear-signed: dash-escaped lines starting with ``-`` and
    ``From `` (every line when ``escape_all``: RFC 4880 §7.1 allows it), between the
    armour and an armoured signature; ``\\n`` lines."""
    escaped = [
        f"- {line}" if escape_all or line.startswith(("-", "From ")) else line
        for line in text.split("\n")
    ]
    body = [_PGP_SIGNATURE[i : i + 64] for i in range(0, len(_PGP_SIGNATURE), 64)]
    return "\n".join(
        [
            "-----BEGIN PGP SIGNED MESSAGE-----",
            "Hash: SHA512",
            "",
            *escaped,
            "-----BEGIN PGP SIGNATURE-----",
            "",
            *body,
            "=fFqd",
            "-----END PGP SIGNATURE-----",
        ]
    )


def _signer() -> cms.SignerInfo:
    """One invented signer: an issuer and serial of no real certificate, a signature of
    invented bytes."""
    return cms.SignerInfo(
        {
            "version": "v1",
            "sid": cms.SignerIdentifier(
                name="issuer_and_serial_number",
                value={
                    "issuer": x509.Name.build({"common_name": "Вася", "country_name": "RU"}),
                    "serial_number": 4_242,
                },
            ),
            "digest_algorithm": {"algorithm": "sha256"},
            "signature_algorithm": {"algorithm": "rsassa_pkcs1v15"},
            "signature": hashlib.sha256(b"invented").digest() * 8,
        }
    )


def signed_data(entity: bytes, *, ber: bool = False, piece: int = 1024) -> bytes:
    """A ``ContentInfo`` of ``SignedData`` whose ``eContent`` is ``entity`` (a MIME
    entity: its header fields, a blank line, its body). DER, or when ``ber`` the BER of
    OpenSSL's ``-stream`` and Outlook: the outer structures of indefinite length, the
    ``eContent`` a constructed OCTET STRING of ``piece``-byte pieces."""
    if not ber:
        signed = cms.SignedData(
            {
                "version": "v1",
                "digest_algorithms": [algos.DigestAlgorithm({"algorithm": "sha256"})],
                "encap_content_info": {"content_type": "data", "content": entity},
                "signer_infos": [_signer()],
            }
        )
        return bytes(cms.ContentInfo({"content_type": "signed_data", "content": signed}).dump())
    pieces = b"".join(
        core.OctetString(entity[i : i + piece]).dump() for i in range(0, len(entity), piece)
    )
    encapsulated = (
        b"\x30\x80"
        + core.ObjectIdentifier("1.2.840.113549.1.7.1").dump()  # id-data
        + b"\xa0\x80\x24\x80"
        + pieces
        + b"\x00\x00\x00\x00\x00\x00"
    )
    version = core.Integer(1).dump()
    digests = cms.DigestAlgorithms([algos.DigestAlgorithm({"algorithm": "sha256"})]).dump()
    signers = cms.SignerInfos([_signer()]).dump()
    signed_ber = b"\x30\x80" + version + digests + encapsulated + signers + b"\x00\x00"
    signed_oid = core.ObjectIdentifier("1.2.840.113549.1.7.2").dump()  # id-signedData
    return bytes(b"\x30\x80" + signed_oid + b"\xa0\x80" + signed_ber + b"\x00\x00\x00\x00")


def enveloped_data() -> bytes:
    """A ``ContentInfo`` of ``EnvelopedData``: content encrypted for no one (invented
    bytes)."""
    enveloped = cms.EnvelopedData(
        {
            "version": "v0",
            "recipient_infos": [],
            "encrypted_content_info": {
                "content_type": "data",
                "content_encryption_algorithm": {
                    "algorithm": "aes128_cbc",
                    "parameters": hashlib.md5(b"iv").digest(),
                },
                "encrypted_content": hashlib.sha256(b"secret").digest(),
            },
        }
    )
    return bytes(cms.ContentInfo({"content_type": "enveloped_data", "content": enveloped}).dump())


def smime(
    der: bytes,
    content_type: str = 'application/pkcs7-mime; smime-type=signed-data; name="smime.p7m"',
) -> tuple[bytes, bytes]:
    """``(content headers, body)`` of an opaque S/MIME part of ``der``, as Thunderbird
    and OpenSSL write it: ``content_type``, an attachment named ``smime.p7m``, base64."""
    head = (
        f"Content-Type: {content_type}\r\n"
        'Content-Disposition: attachment; filename="smime.p7m"\r\n'
        "Content-Transfer-Encoding: base64"
    )
    return head.encode(), base64.encodebytes(der).replace(b"\n", b"\r\n")


def entity(text: str, content_type: str = "text/plain; charset=utf-8") -> bytes:
    """A MIME entity of ``text`` (``\\n`` lines) in UTF-8, 8bit: what a client signs."""
    head = f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
    return head.encode() + text.replace("\n", "\r\n").encode()
