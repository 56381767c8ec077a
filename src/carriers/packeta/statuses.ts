/**
 * Packet status codes (docs `packet-tracking/status-codes`): `packetStatus` answers the current one. Every code
 * means the packet exists; the service reads a packet as `ready` (its label can be printed) unless it was cancelled.
 */
export const PACKET_STATUSES: Readonly<Record<number, { codeText: string; final: boolean }>> = {
  1: { codeText: 'received data', final: false },
  2: { codeText: 'arrived', final: false },
  3: { codeText: 'prepared for departure', final: false },
  4: { codeText: 'departed', final: false },
  5: { codeText: 'ready for pickup', final: false },
  6: { codeText: 'handed to carrier', final: false },
  7: { codeText: 'delivered', final: true },
  9: { codeText: 'posted back', final: false },
  10: { codeText: 'returned', final: true },
  11: { codeText: 'cancelled', final: true },
  12: { codeText: 'collected', final: false },
  14: { codeText: 'customs', final: false },
  15: { codeText: 'reverse packet arrived', final: false },
  16: { codeText: 'delivery attempt', final: false },
  17: { codeText: 'rejected by recipient', final: false },
  999: { codeText: 'unknown', final: true },
};

export const CANCELLED_STATUS = 11;
