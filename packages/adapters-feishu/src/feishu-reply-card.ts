import type { ChannelAction, FeishuCard } from "@downcity/core";

/** The key a button's callback `value` carries the action id under. */
export const actionValueKey = "downcity_action";

/** A Card JSON 2.0 button row: one column per button, the first one primary. */
function buttonRow(actions: readonly ChannelAction[]) {
  return {
    tag: "column_set",
    flex_mode: "flow",
    horizontal_spacing: "8px",
    columns: actions.map((action, index) => ({
      tag: "column",
      width: "auto",
      elements: [
        {
          tag: "button",
          text: { tag: "plain_text", content: action.label },
          type: index === 0 ? "primary" : "default",
          behaviors: [{ type: "callback", value: { [actionValueKey]: action.id } }],
        },
      ],
    })),
  };
}

/**
 * A rendered reply card with the message's buttons under its text: pressing one sends a `card.action.trigger`
 * callback whose `action.value` holds the action id. No buttons (or `[]`) leaves the card as rendered.
 */
export function withButtons(card: FeishuCard, actions: readonly ChannelAction[] | undefined): object {
  if (!actions?.length) return card;
  return { ...card, body: { elements: [...card.body.elements, buttonRow(actions)] } };
}
