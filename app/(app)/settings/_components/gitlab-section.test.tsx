import { render, screen } from "@testing-library/react";
import { expect, it } from "vitest";
import { WebhookUrl } from "./gitlab-section.tsx";

it("tells the user to tick both Merge request events and Comments, so @argus notes arrive too", () => {
  render(<WebhookUrl url="https://argus.example/api/forges/gitlab/webhook" />);
  expect(screen.getByTestId("gitlab-webhook-url").textContent).toBe("https://argus.example/api/forges/gitlab/webhook");
  const hint = screen.getByText(/Add new webhook/);
  const ticked = [...hint.querySelectorAll("em")].map((e) => e.textContent);
  expect(ticked).toEqual(["Merge request events", "Comments"]);
  expect(hint.textContent).toMatch(/@argus/);
});
