// The question every action asks first: why? The answer becomes the event's reason.
import { h } from "./dom.js";

/** Opens a modal asking for a reason; resolves to it, or to undefined when cancelled. */
export function askReason(title: string, detail: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const reason = h("textarea", { name: "reason", id: "reason", rows: 3, required: true, maxlength: 1024,
      placeholder: "Why? (recorded in each task's history)" });
    const dialog = h("dialog", { class: "reason-dialog" });
    const close = (value: string | undefined) => { dialog.close(); dialog.remove(); resolve(value); };
    dialog.append(
      h("form", { method: "dialog", onsubmit: (e: Event) => { e.preventDefault(); close(reason.value.trim()); } },
        h("h3", {}, title),
        h("p", { class: "muted" }, detail),
        h("label", { for: "reason" }, "Reason"),
        reason,
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "secondary", onclick: () => close(undefined) }, "Cancel"),
          h("button", { type: "submit", class: "primary", id: "confirm" }, "Confirm")),
      ),
    );
    dialog.addEventListener("cancel", () => close(undefined));
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  });
}
