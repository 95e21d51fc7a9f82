"use client";
/** The workbench's Parameters tab: the form, and the parameter file it writes as YAML. */
import type { ParamField } from "@/server/shared/pipelines.ts";
import { ParameterForm } from "./parameter-form.tsx";
import type { ParameterFile } from "./params.ts";
import { YamlText } from "./yaml-text.tsx";

export function ParametersTab({
  name,
  fields,
  file,
  onChange,
  readOnly,
}: {
  name: string;
  fields: readonly ParamField[];
  file: ParameterFile;
  onChange: (next: ParameterFile) => void;
  readOnly: boolean;
}) {
  return (
    <div className="space-y-4">
      <ParameterForm fields={fields} file={file} onChange={onChange} readOnly={readOnly} />
      <details>
        <summary className="cursor-pointer text-sm font-medium">
          Parameter file (parameter/{name}_parameter.yaml)
        </summary>
        <pre
          className="mt-2 max-h-96 overflow-auto rounded bg-zinc-50 p-3 text-xs dark:bg-zinc-950"
          aria-label="Parameter file"
        >
          {Object.keys(file).length ? <YamlText value={file} /> : "# no parameter file: the servers' defaults apply\n"}
        </pre>
      </details>
    </div>
  );
}
