"""The messages between the service and an engine child: one JSON object a line, over the child's
stdin (service → child) and its original stdout (child → service; the child moves anything else that
writes to stdout onto stderr, so a stray print cannot corrupt the channel)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# service → child
class Complete(Message):
    op: Literal["complete"] = "complete"
    id: int
    messages: list[dict[str, str]]
    max_tokens: int
    temperature: float
    json_schema: dict[str, Any] | None = None


class Cancel(Message):
    """Stop call ``id`` at its next token (a cancel for a call already finished is ignored)."""

    op: Literal["cancel"] = "cancel"
    id: int


# child → service
class Ready(Message):
    """Loaded, and its first one-token completion answered: the build and the GGUF work on this machine."""

    event: Literal["ready"] = "ready"
    pid: int
    system_info: str
    load_seconds: float


class Started(Message):
    """Call ``id`` produced its first token."""

    event: Literal["started"] = "started"
    id: int


class Done(Message):
    event: Literal["done"] = "done"
    id: int
    text: str
    completion_tokens: int
    cancelled: bool


class Failed(Message):
    """Call ``id`` raised inside llama-cpp-python (the child lives on)."""

    event: Literal["failed"] = "failed"
    id: int
    message: str


class Fatal(Message):
    """The child cannot serve (the model did not load, the first completion failed) and exits."""

    event: Literal["fatal"] = "fatal"
    message: str


Request = Annotated[Complete | Cancel, Field(discriminator="op")]
Reply = Annotated[Ready | Started | Done | Failed | Fatal, Field(discriminator="event")]
REQUESTS: TypeAdapter[Complete | Cancel] = TypeAdapter(Request)
REPLIES: TypeAdapter[Ready | Started | Done | Failed | Fatal] = TypeAdapter(Reply)


def encode(message: Message) -> bytes:
    return message.model_dump_json().encode() + b"\n"
