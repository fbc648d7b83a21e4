-- Argo CD health of a kafkamirror.dev/v1alpha1 ClusterMirror, read the way kstatus (Flux) reads it.
-- Paste as resource.customizations.health.kafkamirror.dev_ClusterMirror in argocd-cm.
--   Progressing: no status yet, being deleted, status.observedGeneration not the generation, or Reconciling True
--   Degraded:    Stalled True (the message is Stalled's)
--   Healthy:     otherwise (Ready or Stopped at the spec's state)
local hs = {}

local function conditionOf(status, wanted)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == wanted then
      return c
    end
  end
  return nil
end

local function isTrue(c)
  return c ~= nil and c.status == "True"
end

local function describe(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    if c.reason ~= nil and c.reason ~= "" then
      return c.reason .. ": " .. c.message
    end
    return c.message
  end
  return fallback
end

local metadata = obj.metadata or {}
local status = obj.status

if metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "being deleted"
  return hs
end
if status == nil then
  hs.status = "Progressing"
  hs.message = "the operator has not written a status yet"
  return hs
end
if metadata.generation ~= nil and status.observedGeneration ~= metadata.generation then
  hs.status = "Progressing"
  hs.message = "generation " .. tostring(metadata.generation) .. " not observed yet (status is of "
    .. tostring(status.observedGeneration) .. ")"
  return hs
end

local reconciling = conditionOf(status, "Reconciling")
if isTrue(reconciling) then
  hs.status = "Progressing"
  hs.message = describe(reconciling, "reconciling")
  return hs
end

local stalled = conditionOf(status, "Stalled")
if isTrue(stalled) then
  hs.status = "Degraded"
  hs.message = stalled.message or ""
  return hs
end

hs.status = "Healthy"
hs.message = "phase " .. tostring(status.phase)
return hs
