/**
 * The portal's request bodies: small JSON only (a sign-in's token, a rotation's overlap), its
 * declared size and nesting checked before a byte is parsed, as the admin API does.
 *
 * Reads the request's headers and body; sets req.body.
 */
import express, { type RequestHandler } from 'express';
import { declaredSizeAtMost, verifyJsonDepth } from '../admin/routes/body-guard';
import { accepts, JSON_TYPES } from '../admin/routes/route-kit';

const PORTAL_BODY_BYTES = 4096;

export const smallJsonBody: RequestHandler[] = [
  declaredSizeAtMost(PORTAL_BODY_BYTES),
  accepts(JSON_TYPES),
  express.json({ limit: PORTAL_BODY_BYTES, verify: verifyJsonDepth }),
];
