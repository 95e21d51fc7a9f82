import { act, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { chatAnchor, useChatAnchor } from "./use-chat-anchor.ts";

function Chat({ messages }: { messages: { id: string; text: string }[] }) {
  useChatAnchor(messages);
  return (
    <ul>
      {messages.map((m) => (
        <li key={m.id} id={chatAnchor(m.id)}>
          {m.text}
        </li>
      ))}
    </ul>
  );
}

describe("useChatAnchor: a link to a chat message lands on it", () => {
  const scrolled: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    scrolled.length = 0;
    vi.spyOn(HTMLElement.prototype, "scrollIntoView").mockImplementation(function (this: HTMLElement) {
      scrolled.push(this.textContent ?? "");
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    window.location.hash = "";
  });

  it("waits for the message to arrive over the socket, then scrolls to it and marks it for a moment", () => {
    window.location.hash = `#${chatAnchor("m2")}`;
    const view = render(<Chat messages={[{ id: "m1", text: "first" }]} />);
    expect(scrolled).toEqual([]);

    view.rerender(
      <Chat
        messages={[
          { id: "m1", text: "first" },
          { id: "m2", text: "the one linked" },
        ]}
      />,
    );
    expect(scrolled).toEqual(["the one linked"]);
    const linked = screen.getByText("the one linked");
    expect(linked.getAttribute("data-highlight")).toBe("true");
    expect(screen.getByText("first").hasAttribute("data-highlight")).toBe(false);

    act(() => vi.advanceTimersByTime(5_100));
    expect(linked.hasAttribute("data-highlight")).toBe(false);
  });

  it("lands once per link: more messages do not pull the reader back", () => {
    window.location.hash = `#${chatAnchor("m1")}`;
    const view = render(<Chat messages={[{ id: "m1", text: "linked" }]} />);
    act(() => vi.advanceTimersByTime(6_000));
    view.rerender(
      <Chat
        messages={[
          { id: "m1", text: "linked" },
          { id: "m3", text: "later" },
        ]}
      />,
    );
    expect(scrolled).toEqual(["linked"]);
  });
});
