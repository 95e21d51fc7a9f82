"use client";
/**
 * Model- and user-written Markdown, rendered safely: react-markdown builds React elements (no
 * innerHTML), raw HTML in the source is dropped (skipHtml; without rehype-raw it is never parsed as
 * HTML), link targets other than http(s), mailto and in-app paths are removed (safeLinkUrl), images
 * are shown as their alt text (no request to another host), and tables are not rendered as tables
 * (no GFM plugin). External links open in a new tab without an opener. With `codeLink`,
 * `path:line` references become links to the code viewer. @mention tokens become name chips (spans,
 * never links: the `mention:` scheme is no link target).
 */
import { useMemo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { safeLinkUrl } from "@/server/shared/safe-links.ts";
import { type CodeLink, remarkCodeRefLinks } from "./code-ref-links.ts";
import { remarkMentionChips } from "./mention-chips.ts";

const components: Components = {
  h1: ({ children }) => <h3 className="mt-3 text-base font-semibold">{children}</h3>,
  h2: ({ children }) => <h3 className="mt-3 text-base font-semibold">{children}</h3>,
  h3: ({ children }) => <h4 className="mt-3 text-sm font-semibold">{children}</h4>,
  p: ({ children }) => <p className="my-2 leading-relaxed">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5">{children}</ol>,
  a: ({ children, href }) =>
    !href ? (
      <span className="underline decoration-dotted">{children}</span>
    ) : href.startsWith("/") ? (
      <a href={href} className="text-brand-600 underline">
        {children}
      </a>
    ) : (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow" className="text-brand-600 underline">
        {children}
      </a>
    ),
  code: ({ children, className }) => (
    <code
      className={
        className
          ? `${className} font-mono text-[13px]`
          : "rounded bg-zinc-100 px-1 py-0.5 font-mono text-[13px] dark:bg-zinc-800"
      }
    >
      {children}
    </code>
  ),
  pre: ({ children }) => (
    <pre className="my-2 overflow-x-auto rounded-md bg-zinc-50 p-3 text-[13px] dark:bg-zinc-900 [&_code]:bg-transparent [&_code]:p-0">
      {children}
    </pre>
  ),
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-zinc-300 pl-3 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
      {children}
    </blockquote>
  ),
  img: ({ alt }) => <span className="text-zinc-500">[image: {alt}]</span>,
};

/**
 * One line inside something already clickable (an inbox item's link): emphasis and code stay, blocks
 * flow as text, and links are plain text (a link inside a link is invalid HTML and unclickable).
 */
const inlineComponents: Components = {
  ...components,
  h1: ({ children }) => <strong>{children} </strong>,
  h2: ({ children }) => <strong>{children} </strong>,
  h3: ({ children }) => <strong>{children} </strong>,
  p: ({ children }) => <span>{children} </span>,
  ul: ({ children }) => <span>{children}</span>,
  ol: ({ children }) => <span>{children}</span>,
  li: ({ children }) => <span>· {children} </span>,
  a: ({ children }) => <span className="underline decoration-dotted">{children}</span>,
  pre: ({ children }) => (
    <span className="[&_code]:rounded [&_code]:bg-zinc-100 dark:[&_code]:bg-zinc-800">{children}</span>
  ),
  blockquote: ({ children }) => <span className="text-zinc-600 dark:text-zinc-400">{children}</span>,
};

const urlTransform = (url: string) => safeLinkUrl(url) ?? "";

export function Markdown({
  children,
  className,
  codeLink,
  inline = false,
}: {
  children: string;
  className?: string;
  codeLink?: CodeLink;
  /** Render as one line of text inside a link or button (inlineComponents). */
  inline?: boolean;
}) {
  // Mentions last: code references never reach into a link, so a token is still whole by then.
  const plugins = useMemo(
    () => (codeLink ? [remarkCodeRefLinks(codeLink), remarkMentionChips] : [remarkMentionChips]),
    [codeLink],
  );
  const Wrapper = inline ? "span" : "div";
  return (
    <Wrapper className={className ?? "text-sm"}>
      <ReactMarkdown
        skipHtml
        components={inline ? inlineComponents : components}
        urlTransform={urlTransform}
        remarkPlugins={plugins}
      >
        {children}
      </ReactMarkdown>
    </Wrapper>
  );
}
