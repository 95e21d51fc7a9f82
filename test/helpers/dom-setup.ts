/**
 * The app project's setup (vitest.config.mts): each component test starts on an empty page. Testing
 * Library unmounts by itself only when vitest's globals are on; they are not, so it is done here.
 */
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());
